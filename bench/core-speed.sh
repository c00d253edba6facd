#!/bin/sh
# core-speed.sh — time and peak memory of `v8walk --core` on a large gcore: the postmortem
# fixture parks its main thread at a known stack while WORKERS workers spin, holding HEAP_MB of
# ballast; gdb's gcore writes every mapping (about 0.7 GB for an idle Node 20 plus the ballast).
#   bench/core-speed.sh [NODE] [HEAP_MB] [WORKERS] [RUNS]
# Each run first drops the core's and node's pages from the page cache (dd iflag=nocache:
# POSIX_FADV_DONTNEED on those two files only), so that it reads them from disk like a first look at a fresh core would.
# The core is written under /tmp and deleted at the end.
set -eu
cd "$(dirname "$0")/.."
NODE=${1:-$(scripts/fetch-node.sh 20.20.2)}
HEAP_MB=${2:-300}
WORKERS=${3:-2}
RUNS=${4:-5}
V8WALK=${V8WALK:-$PWD/build/v8walk}
dir=$(mktemp -d /tmp/v8walk-core-speed.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM

"$NODE" fixtures/postmortem.js park "$WORKERS" "$HEAP_MB" >"$dir/ready" &
pid=$!
until grep -q '"ready"' "$dir/ready" 2>/dev/null; do sleep 0.2; done
gcore -o "$dir/gcore" "$pid" >/dev/null 2>&1
kill -9 "$pid"
pid=
core=$dir/gcore.$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$dir/ready")
echo "node $("$NODE" --version), core $(stat -c %s "$core") bytes ($(du -k "$core" | cut -f1) KiB on disk)"
for i in $(seq "$RUNS"); do
	for f in "$core" "$NODE"; do dd if="$f" iflag=nocache count=0 status=none; done
	/usr/bin/time -f "run $i: %e s wall, %U s user, %S s sys, max RSS %M KiB" \
		"$V8WALK" --core "$core" >"$dir/out" 2>"$dir/time" || true
	tail -n 1 "$dir/time"
done
echo "threads: $(grep -c '^Thread' "$dir/out"), frames: $(grep -c '^  #' "$dir/out")"
