#!/bin/sh
# run-e2e.sh — the end-to-end suite: real v8walk against real node processes. With
# NODE_UNDER_TEST set, against that one node; otherwise against every line of the version matrix
# (official binaries fetched and verified by scripts/fetch-node.sh). The suite runs once per
# sampler (V8WALK_MODE=ptrace, then bpf; V8WALK_MODES="ptrace" picks fewer): every sampling run
# uses that mode, and the tests that belong to one sampler run in its pass only. The harness
# itself runs on the machine's node.
set -eu
cd "$(dirname "$0")/.."
: "${V8WALK:=$PWD/build/v8walk}"
: "${V8WALK_MODES:=ptrace bpf}"
export V8WALK

if [ -n "${NODE_UNDER_TEST:-}" ]; then
	nodes=$NODE_UNDER_TEST
else
	nodes=$(scripts/fetch-node.sh --all)
fi

status=0
for n in $nodes; do
	for mode in $V8WALK_MODES; do
		echo "=== end-to-end suite on $n ($($n --version)), $mode mode"
		if ! V8WALK_MODE=$mode NODE_UNDER_TEST=$n node --test --test-concurrency=1 tests/e2e/*.test.js; then
			status=1
		fi
	done
done
exit $status
