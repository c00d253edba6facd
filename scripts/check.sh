#!/bin/sh
# check.sh — `make check`: each part of the check in turn (CHECK_PARTS, make targets), every part
# run even when one before it failed, how long each took, and a summary at the end; the exit
# status is non-zero when any part failed. MAKE names the make to run the parts with.
set -u
cd "$(dirname "$0")/.."
: "${MAKE:=make}"
: "${CHECK_PARTS:=test-unit test-e2e check-fuzz check-asan test-containers check-arm64-smoke}"
start=$(date +%s)
summary=""
failed=""
for part in $CHECK_PARTS; do
	t0=$(date +%s)
	echo "=== make check: $part"
	if $MAKE --no-print-directory "$part"; then
		result=passed
	else
		result=FAILED
		failed="$failed $part"
	fi
	took=$(($(date +%s) - t0))
	echo "=== make check: $part $result in ${took} s"
	summary="$summary$(printf '  %-20s %-7s %5d s' "$part" "$result" "$took")
"
done
echo "=== make check: $(($(date +%s) - start)) s in all"
printf '%s' "$summary"
if [ -n "$failed" ]; then
	echo "make check: failed:$failed" >&2
	exit 1
fi
