#!/bin/sh
# setup-deps.sh [dist [DEB_ARCH]] — install the Debian packages v8walk's build and tests need;
# with `dist`, also what `make dist` needs: the static archives that go into the self-contained
# binary (libdw's decompressors zstd, xz and bzip2; mbedTLS, libbpf, libelf/libdw and libiberty
# are in the base list) and lintian. A DEB_ARCH other than the host's (arm64 on amd64) asks for
# a cross build: those archives for that architecture and its cross compiler. Idempotent: only
# missing packages are installed, and nothing is done when all are present.
set -eu
. "$(dirname "$0")/lib/apt-missing.sh"

PKGS="pkg-config libelf-dev libdw-dev libiberty-dev libunwind-dev libbpf-dev libcriterion-dev \
bpftool clang libclang-rt-14-dev llvm gdb time zlib1g-dev golang-go chromium tmux \
libmbedtls-dev clickhouse-server clickhouse-client openssl systemd mandoc pngquant"

if [ "${1:-}" = dist ]; then
	host=$(dpkg --print-architecture)
	arch=${2:-$host}
	PKGS="lintian"
	static="libelf-dev libdw-dev libiberty-dev libbpf-dev libmbedtls-dev zlib1g-dev libzstd-dev \
liblzma-dev libbz2-dev"
	if [ "$arch" = "$host" ]; then
		PKGS="$PKGS $static"
	else
		if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
			echo "setup-deps: a cross build for $arch needs \`dpkg --add-architecture $arch\` \
and \`apt-get update\` first" >&2
			exit 1
		fi
		triple=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null ||
			echo "$arch-linux-gnu")
		PKGS="$PKGS gcc-$triple binutils-$triple"
		for p in $static; do PKGS="$PKGS $p:$arch"; done
	fi
fi


# shellcheck disable=SC2086
install_missing setup-deps $PKGS
