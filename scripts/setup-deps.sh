#!/bin/sh
# setup-deps.sh — install the Debian packages v8walk's build and tests need; idempotent: only
# missing packages are installed, and nothing is done when all are present.
set -eu

PKGS="pkg-config libelf-dev libdw-dev libiberty-dev libunwind-dev libbpf-dev libcriterion-dev \
bpftool clang libclang-rt-14-dev llvm gdb time zlib1g-dev golang-go chromium tmux \
libcurl4-openssl-dev clickhouse-server clickhouse-client openssl systemd mandoc pngquant"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "setup-deps: installing$missing"
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "setup-deps: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
	$SUDO apt-get update
	$SUDO apt-get install -y --no-install-recommends $missing
fi
