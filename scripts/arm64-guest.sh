#!/bin/sh
# arm64-guest.sh — the tests `make check-arm64` runs inside the emulated arm64 machine
# (scripts/arm64-vm.sh run), in the repository the host built with `make ARCH=arm64`:
#
#   arm64-guest.sh facts      what the machine offers v8walk: pointer authentication, BTF, perf
#                             events, ptrace, BPF; the PAC notes of the Node builds
#   arm64-guest.sh unit       the unit tests built for arm64 (Criterion; ARM64_UNIT_FILTER: those
#                             suites only, e.g. '@(frames|core)/*')
#   arm64-guest.sh e2e        the end-to-end suite (scripts/run-e2e.sh) against each official
#                             arm64 Node build of ARM64_NODES and Debian's arm64 node (libnode),
#                             ARM64_E2E_FILES of tests/e2e (default: all), ARM64_MODES samplers,
#                             the tests whose names match ARM64_E2E_PATTERN (default: the arm64
#                             part, scripts/arm64-part.js: the support table's tests and one of
#                             each capability it has no column for; '.': every test); each
#                             build's results in build/arm64/matrix (the table's arm64 rows)
#   arm64-guest.sh all        facts, unit, e2e (facts-e2e: without the unit tests)
#
# The harness runs on the official Node ARM64_HARNESS_NODE (20.20.2). The output formats'
# browser checks are skipped here with their reason (no chromium in this machine); each test
# runner prints its own closing lines, and the exit status is non-zero when any failed.
set -u
cd "$(dirname "$0")/.."
: "${ARM64_NODES:=20.20.2 22.23.3 24.21.0 26.10.0}"
: "${ARM64_MODES:=ptrace bpf}"
: "${ARM64_DEBIAN_NODE:=1}"
NODE_CACHE=${V8WALK_NODE_ARM64_CACHE:-$HOME/.cache/v8walk/node-arm64}
[ -d "$NODE_CACHE" ] || NODE_CACHE=$(sed -n 's/.*v8walk.nodes=\([^ ]*\).*/\1/p' /proc/cmdline)
export V8WALK="$PWD/build/arm64/v8walk"
# the harness's node: Node 20, as on the host (a Node 22+ test runner fails on run-e2e.sh's
# --test-reporter-destination=/dev/null: it fsyncs it, EINVAL)
: "${ARM64_HARNESS_NODE:=20.20.2}"
PATH="$NODE_CACHE/$ARM64_HARNESS_NODE/package/bin:$PATH"
export PATH
# and it runs without V8's helper threads (no concurrent compiler, marker or sweeper): the
# emulator stretches their interleavings far beyond real hardware's, what the harness does needs
# no second thread, and a race between them must not fail a test of v8walk
export E2E_HARNESS_NODE_ARGS=--single-threaded
export V8WALK_BROWSER_SKIP="no chromium in the emulated arm64 machine"
# code runs ~10-30 times slower here than on real hardware: the unit tests' timing bounds stretch
export V8WALK_TEST_TIME_SCALE=30
# and the end-to-end harness waits longer for a fixture's messages
export V8WALK_E2E_TIME_SCALE=4
: "${ARM64_E2E_PATTERN:=$(node scripts/arm64-part.js)}"
# each build's results (the smoke keeps its own, apart from the table's)
: "${ARM64_RESULTS:=build/arm64/matrix}"
status=0

elapsed() { echo "arm64-guest: $1 took $(($(date +%s) - $2)) s"; }

facts() {
	echo "=== the machine"
	uname -srm
	echo "cpus: $(nproc), memory: $(awk '/MemTotal/ {print $2 / 1024 " MiB"}' /proc/meminfo)"
	grep -m1 '^Features' /proc/cpuinfo
	for f in paca pacg; do
		if grep -m1 '^Features' /proc/cpuinfo | grep -qw "$f"; then echo "pointer authentication: $f"; else echo "pointer authentication: no $f"; fi
	done
	sleep 60 &
	pid=$!
	echo "the kernel's PAC masks (NT_ARM_PAC_MASK, through gdb): $(gdb -batch -p $pid \
		-ex 'info registers pauth_dmask pauth_cmask' 2>/dev/null | grep pauth | tr -s ' ' | tr '\n' ' ')"
	kill $pid
	[ -r /sys/kernel/btf/vmlinux ] && echo "BTF: /sys/kernel/btf/vmlinux ($(stat -c %s /sys/kernel/btf/vmlinux) bytes)" || echo "BTF: none"
	echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"
	echo "kernel.yama.ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)"
	command -v bpftool >/dev/null && bpftool feature probe kernel 2>/dev/null |
		grep -E "program_type perf_event|program_type tracing|map_type ringbuf" | sed 's/^/bpftool: /'
	echo "=== the Node builds"
	t0=$(date +%s)
	for v in $ARM64_NODES; do
		bin=$NODE_CACHE/$v/package/bin/node
		t=$(date +%s%N)
		ver=$("$bin" -e 'process.stdout.write(process.version + " V8 " + process.versions.v8)')
		ms=$((($(date +%s%N) - t) / 1000000))
		echo "official $ver: start-up and exit ${ms} ms; $(readelf -n "$bin" 2>/dev/null | grep -m1 'AArch64 feature' | sed 's/^ *//' || echo 'no AArch64 feature note')"
	done
	if [ "$ARM64_DEBIAN_NODE" = 1 ]; then
		ver=$(node_debian -e 'process.stdout.write(process.version + " V8 " + process.versions.v8)')
		lib=$(ldd /usr/bin/node | awk '/libnode/ {print $3}')
		echo "Debian $ver ($lib): $(readelf -n "$lib" 2>/dev/null | grep -m1 'AArch64 feature' | sed 's/^ *//' || echo 'no AArch64 feature note')"
	fi
	elapsed facts "$t0"
}

node_debian() { /usr/bin/node "$@"; }

unit() {
	echo "=== unit tests (arm64 build)"
	t0=$(date +%s)
	build/arm64/unit-tests --jobs 2 ${ARM64_UNIT_FILTER:+"--filter=$ARM64_UNIT_FILTER"} || status=1
	# slow perf handlers (emulated) make the kernel lower the sampling rate it allows, and
	# throttle events past it
	echo "perf_event_max_sample_rate: $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	dmesg | grep -E 'perf: |throttl' | tail -3
	elapsed "unit tests" "$t0"
}

e2e() {
	t0=$(date +%s)
	files=""
	for f in ${ARM64_E2E_FILES:-}; do files="$files tests/e2e/$f"; done
	for v in $ARM64_NODES; do
		t1=$(date +%s)
		E2E_FILES=$files V8WALK_MODES=$ARM64_MODES E2E_RESULTS=$ARM64_RESULTS \
			E2E_NAME_PATTERN=$ARM64_E2E_PATTERN E2E_LABEL="Node $v (official, arm64)" \
			NODE_UNDER_TEST=$NODE_CACHE/$v/package/bin/node scripts/run-e2e.sh || status=1
		elapsed "Node $v" "$t1"
	done
	if [ "$ARM64_DEBIAN_NODE" = 1 ]; then
		t1=$(date +%s)
		# Debian's node without an npm (Debian ships npm apart, and the image does not hold it):
		# the npx test says so and is skipped. npm 10 run by this node (18.20.4) dies of SIGSEGV
		# in a V8 builtin of libnode.so.108 in this machine, in about two runs of five with a busy
		# process beside it, before it has run anything of v8walk (an exec and signal trace shows
		# none started): that test would judge Debian's node, not v8walk's packages.
		V8WALK_NPM= E2E_FILES=$files V8WALK_MODES=$ARM64_MODES E2E_RESULTS=$ARM64_RESULTS \
			E2E_NAME_PATTERN=$ARM64_E2E_PATTERN \
			E2E_LABEL="Node $(node_debian --version | sed 's/^v//') (Debian arm64, libnode.so)" \
			NODE_UNDER_TEST=/usr/bin/node scripts/run-e2e.sh || status=1
		elapsed "Debian's node" "$t1"
	fi
	elapsed "end-to-end suite" "$t0"
}

case "${1:-all}" in
facts) facts ;;
facts-e2e)
	facts
	e2e
	;;
unit) unit ;;
e2e) e2e ;;
all)
	facts
	unit
	e2e
	;;
*)
	echo "usage: arm64-guest.sh facts | unit | e2e | facts-e2e | all" >&2
	exit 2
	;;
esac
exit $status
