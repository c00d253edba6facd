#!/bin/sh
# fuzz/run.sh BUILD SECONDS NAME... — run each libFuzzer harness BUILD/fuzz_NAME for SECONDS on
# its corpus: first every committed seed (fuzz/corpus/NAME: real inputs and the reproducers of
# crashes found before, so a regression fails here) and generated seed (BUILD/seeds/NAME), then
# new inputs; what it learns accumulates in BUILD/corpus/NAME. Prints execs and coverage per
# harness; exits non-zero when any harness crashed, leaked, hung or ran out of memory (the input
# is kept in BUILD/crashes/NAME/ — fix the bug, then add that file to fuzz/corpus/NAME).
# fuzz/NAME.options adds libFuzzer flags for one harness. Runs at nice 19, one harness at a time (FUZZ_JOBS=N runs N at once).
set -eu
build=$1 seconds=$2
shift 2
: "${FUZZ_JOBS:=1}"
rm -rf "$build/seeds"
"$build/gen_seeds" "$build/seeds"
status=0
run_one() {
	name=$1
	mkdir -p "$build/corpus/$name" "$build/crashes/$name" "fuzz/corpus/$name"
	log=$build/fuzz-$name.log
	extra=$(cat "fuzz/$name.options" 2>/dev/null || true)
	seeds="fuzz/corpus/$name"
	[ -d "$build/seeds/$name" ] && seeds="$seeds $build/seeds/$name"
	# shellcheck disable=SC2086
	if nice -n 19 "$build/fuzz_$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$build/crashes/$name/" $extra \
		"$build/corpus/$name" $seeds >"$log" 2>&1; then
		result=ok
	else
		result="FAILED (see $log and $build/crashes/$name/)"
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | sed 's/ft: //')
	units=$(find "$build/corpus/$name" -type f | wc -l)
	printf 'fuzz %-14s %6ss  execs %10s  cov %5s  ft %6s  corpus %5s  %s\n' "$name" "$seconds" \
		"${execs:-?}" "${cov:-?}" "${ft:-?}" "$units" "$result"
	[ "$result" = ok ]
}
# FUZZ_JOBS at a time: a batch runs in the background, then the next
set -- "$@"
while [ $# -gt 0 ]; do
	pids=""
	i=0
	while [ $# -gt 0 ] && [ $i -lt "$FUZZ_JOBS" ]; do
		run_one "$1" &
		pids="$pids $!"
		i=$((i + 1))
		shift
	done
	for p in $pids; do wait "$p" || status=1; done
done
exit $status
