#!/bin/sh
# run-e2e.sh — the end-to-end suite: real v8walk against real node processes. With
# NODE_UNDER_TEST set, against that one node; otherwise against the lines E2E_LINES names (see
# below: official binaries fetched and verified by scripts/fetch-node.sh) and Debian's node built
# as a shared library (scripts/fetch-debian-node.sh); after the whole matrix, docs/support.md's
# support table is regenerated from the results. On each node the suite runs once per sampler (V8WALK_MODE=ptrace, then bpf;
# V8WALK_MODES="ptrace" runs fewer): every sampling run uses that mode, tests that belong to one
# sampler run in its pass only, and the files that never sample (cores, --version-info, --dump)
# run in the ptrace pass only, as does the stop limit (a ptrace option). The harness itself runs
# on the machine's node. The output formats are read in headless chromium on the first node of
# the run only (V8WALK_BROWSER_TESTS: what the browser reads does not depend on the node line,
# and chromium is slow to start); likewise
# `top` in a terminal and the SIGUSR1/--period files (V8WALK_TERMINAL_TESTS: the terminal and the
# files' cutting do not depend on it either), and the files that test nothing of the node
# (E2E_LINE_FREE, below); `make check` runs the export to ClickHouse in the eBPF pass only (the
# fleet agent's sampler; the export does not depend on the sampler).
set -eu
cd "$(dirname "$0")/.."
: "${V8WALK:=$PWD/build/v8walk}"
: "${V8WALK_MODES:=ptrace bpf}"
: "${E2E_RESULTS:=build/matrix}" # one JSON of results per node (the support table's input)
export V8WALK

# files that test nothing of the node under test run on the first node of a run only, in each
# sampler's pass (E2E_LINE_FREE): the export to ClickHouse, v8walk's HTTP client and npx of the
# dist packages (skipped without them) always; in
# `make check` (E2E_LINES=ci) also the output formats, the target's safety, --period and SIGUSR1,
# top, the command line's errors and hostile files, which the version matrix runs on every line
# (its support table names tests of them)
if [ "${E2E_LINES:-all}" = ci ]; then
	: "${E2E_LINE_FREE:=clickhouse.test.js net_client.test.js npm_install.test.js formats.test.js safety.test.js periodic.test.js top.test.js errors.test.js hostile.test.js}"
else
	: "${E2E_LINE_FREE:=clickhouse.test.js net_client.test.js npm_install.test.js}"
fi

# test files of a pass: mode, the node's order in the run (E2E_FILES="a.test.js b.test.js" runs
# only those of tests/e2e/)
files_for() {
	for f in ${E2E_FILES:-tests/e2e/*.test.js}; do
		f=tests/e2e/$(basename "$f")
		case " $E2E_LINE_FREE " in
		*" $(basename "$f") "*) [ "$2" -le 1 ] || continue ;;
		esac
		case "$1:$(basename "$f")" in
		bpf:core.test.js | bpf:core_damage.test.js | bpf:version_info.test.js | bpf:dump.test.js | \
		bpf:hostile.test.js | bpf:stop_limit.test.js) ;;
		ptrace:clickhouse.test.js) if [ "${E2E_LINES:-all}" != ci ]; then echo "$f"; fi ;;
		*) echo "$f" ;;
		esac
	done
}

# node's test runner; E2E_NAME_PATTERN runs only the tests whose names match it (the others are
# reported skipped: "test name does not match pattern"); E2E_HARNESS_NODE_ARGS are node options
# for the runner and the test files' processes (not for the nodes under test)
node_test() {
	if [ -n "${E2E_NAME_PATTERN:-}" ]; then
		node ${E2E_HARNESS_NODE_ARGS:-} --test "--test-name-pattern=$E2E_NAME_PATTERN" "$@"
	else
		node ${E2E_HARNESS_NODE_ARGS:-} --test "$@"
	fi
}

run_suite() { # label node-binary libdir order
	mkdir -p "$E2E_RESULTS"
	result=$E2E_RESULTS/$(echo "$1" | tr -c 'A-Za-z0-9.\n' '_').json
	rm -f "$result"
	for mode in $V8WALK_MODES; do
		echo "=== end-to-end suite on $1: $2, $mode mode"
		# shellcheck disable=SC2046
		if V8WALK_MODE=$mode NODE_UNDER_TEST=$2 NODE_UNDER_TEST_LIBDIR=$3 MATRIX_RESULT=$result \
			MATRIX_LABEL=$1 V8WALK_BROWSER_TESTS=$([ "$4" -le 1 ] && echo 1 || echo 0) \
			V8WALK_TERMINAL_TESTS=$([ "$4" -le 1 ] && echo 1 || echo 0) node_test --test-concurrency=1 \
			--test-reporter=tap --test-reporter-destination=stdout \
			--test-reporter=./tests/e2e/matrix-reporter.js --test-reporter-destination=/dev/null \
			$(files_for "$mode" "$4"); then
			:
		else
			status=1
		fi
	done
	node -e 'const f=process.argv[1],r=JSON.parse(require("fs").readFileSync(f));r.order=+process.argv[2];require("fs").writeFileSync(f,JSON.stringify(r,null,1))' "$result" "$4"
}

status=0
if [ -n "${NODE_UNDER_TEST:-}" ]; then
	# E2E_LABEL: the build's name in the results (default: its --version)
	run_suite "${E2E_LABEL:-$("$NODE_UNDER_TEST" --version 2>/dev/null || echo node)}" "$NODE_UNDER_TEST" "${NODE_UNDER_TEST_LIBDIR:-}" 0
	node scripts/e2e-failures.js "$result"
	exit $status
fi

# E2E_LINES=ci (what `make check` runs): the system's node, the oldest and the newest official
# lines, and Debian's libnode; =all (`make check-matrix`): every line of the matrix and libnode,
# and the support table (docs/support.md) is written from the results.
rm -rf build/matrix
lines=${E2E_LINES:-all}
order=0
if [ "$lines" = ci ]; then
	order=1
	sys=$(command -v node)
	run_suite "Node $("$sys" --version | sed 's/^v//') (this machine's node)" "$sys" "" $order
	set -- $(scripts/fetch-node.sh --list)
	versions="$1"
	shift $(($# - 1))
	versions="$versions $1"
else
	versions=$(scripts/fetch-node.sh --list)
fi
for v in $versions; do
	order=$((order + 1))
	run_suite "Node $v (official)" "$(scripts/fetch-node.sh "$v")" "" $order
done
# Debian's libnode differs from the official builds in what both samplers share (a stripped
# shared library, its builtins unnamed): `make check` runs it in the ptrace pass only
set -- $(scripts/fetch-debian-node.sh)
all_modes=$V8WALK_MODES
if [ "$lines" = ci ]; then
	case " $all_modes " in *" ptrace "*) V8WALK_MODES=${E2E_LIBNODE_MODES:-ptrace} ;; esac
fi
run_suite "Node $(LD_LIBRARY_PATH=$2 "$1" --version | sed 's/^v//') (Debian, libnode.so)" "$1" "$2" 99
V8WALK_MODES=$all_modes
if [ "$lines" = all ]; then
	node scripts/support-table.js || status=1
fi
node scripts/e2e-failures.js "$E2E_RESULTS"
exit $status
