#!/bin/sh
# measure-positions.sh — run the exact-frames end-to-end test on every Node line of the matrix
# (or on NODE_UNDER_TEST) and print, per version: frames compared, exact matches (name, file,
# line, column) and the mismatch classes, from the per-frame records the test writes.
set -eu
cd "$(dirname "$0")/.."
: "${V8WALK:=$PWD/build/v8walk}"
export V8WALK
report=$(mktemp /tmp/v8walk-positions-XXXXXX.jsonl)
trap 'rm -f "$report"' EXIT
if [ -n "${NODE_UNDER_TEST:-}" ]; then nodes=$NODE_UNDER_TEST; else nodes=$(scripts/fetch-node.sh --all); fi
for n in $nodes; do
	NODE_UNDER_TEST=$n V8WALK_POSITIONS_REPORT=$report node --test tests/e2e/positions.test.js >/dev/null 2>&1 || true
done
node scripts/positions-report.js "$report"
