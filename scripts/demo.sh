#!/bin/sh
# demo.sh — start fixtures/demo.js with no flags, profile it for a few seconds, print the tree.
set -eu
V8WALK=${1:-build/v8walk}
NODE=${NODE:-node}
SECONDS_TO_SAMPLE=${DEMO_SECONDS:-5}

$NODE fixtures/demo.js &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT INT TERM
sleep 1
echo "demo: profiling node process $pid (fixtures/demo.js) for ${SECONDS_TO_SAMPLE}s"
"$V8WALK" --pid "$pid" --text --duration "$SECONDS_TO_SAMPLE"
