#!/bin/sh
# setup-deps.sh — install the Debian packages v8walk's build and tests need; idempotent: only
# missing packages are installed, and nothing is done when all are present.
set -eu
. "$(dirname "$0")/lib/apt-missing.sh"

# shellcheck disable=SC2086
install_missing setup-deps pkg-config libelf-dev libdw-dev libiberty-dev libunwind-dev libbpf-dev \
	libcriterion-dev bpftool clang libclang-rt-14-dev llvm gdb time zlib1g-dev golang-go chromium \
	tmux libcurl4-openssl-dev clickhouse-server clickhouse-client openssl systemd
