#!/bin/sh
# check-asan.sh BUILD — the unit tests and the end-to-end suite (ptrace mode) against a v8walk
# built with ASan + UBSan in BUILD (make check-asan builds it), on two Node lines: the system's
# node and Node 26 (scripts/fetch-node.sh). Any sanitizer report (memory error, leak, undefined
# behaviour) makes v8walk exit non-zero and so fails the test that ran it. The eBPF pass is left
# out to keep CI's added time near ten minutes: its decoding (bpf/sample_walk.c) is covered by
# the sample_record fuzz harness, and the tracer code it skips is ptrace-only anyway.
# Each file runs on one of the two nodes, which keeps CI's added time near seven minutes with the build: on Node
# 26 the files whose decoding depends on the V8 line (frames, names, positions, inlining, cores of
# that V8, dumps, await chains, the tracer's safety and the torture slice); on the system's node
# the others that reach v8walk's C code other ways (the sampler's paths, damaged cores, hostile
# files, the stack copies, source maps, periods, the command line's errors, launch mode,
# --version-info). Left out: the files that repeat those paths on other workloads (the oracle, the
# shares, the containers'), and those whose decoders of outside input the fuzz harnesses run under
# the same sanitizers (perf maps, ClickHouse's answers and the spool; the output formats' writers
# are covered by the unit tests under ASan).
# ASAN_E2E_FILES_SYSTEM / ASAN_E2E_FILES_26="a.test.js …" choose others. On the system's node
# v8walk copies the stacks itself (V8WALK_STACK_COPY=read: the fallback where perf events are not
# allowed, which the other passes, where the kernel copies them, do not take); on Node 26 the
# kernel does (auto).
set -eu
cd "$(dirname "$0")/.."
build=$1
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
echo "=== check-asan: unit tests ($build/unit-tests)"
# one job: Criterion's parallel runner leaks a block of its own, which LeakSanitizer would report
"$build/unit-tests" --jobs 1
status=0
for node in "$(command -v node)" "$(scripts/fetch-node.sh 26.10.0)"; do
	if [ "$node" = "$(command -v node)" ]; then
		copy=read
		files=${ASAN_E2E_FILES_SYSTEM:-sampler.test.js core_damage.test.js hostile.test.js \
stack_copy.test.js stop_limit.test.js sourcemaps.test.js errors.test.js launch.test.js \
version_info.test.js periodic.test.js}
	else
		copy=
		files=${ASAN_E2E_FILES_26:-names.test.js positions.test.js dump.test.js core.test.js \
async.test.js safety.test.js torture.test.js}
	fi
	echo "=== check-asan: end-to-end suite on $node ($("$node" --version)), ptrace mode, stacks copied by ${copy:+v8walk (--stack-copy }${copy:-the kernel}${copy:+)}"
	V8WALK=$PWD/$build/v8walk NODE_UNDER_TEST=$node V8WALK_MODES=ptrace V8WALK_STACK_COPY=$copy \
		E2E_RESULTS=$build/matrix E2E_FILES=$files scripts/run-e2e.sh || status=1
done
exit $status
