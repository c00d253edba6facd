#!/bin/sh
# versions.sh — the sampler's cost and the share of samples with a named JS frame on
# fixtures/demo.js, on every Node line of the version matrix and Debian's libnode build, at 99 Hz.
set -eu
cd "$(dirname "$0")/.."
nodes=$(scripts/fetch-node.sh --all)
set -- $(scripts/fetch-debian-node.sh)
nodes="$nodes $1:$2"
BENCH_NODES=$nodes BENCH_RATES=${BENCH_RATES:-99} BENCH_SECONDS=${BENCH_SECONDS:-10} exec node bench/sampler_cost.js
