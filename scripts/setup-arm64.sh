#!/bin/sh
# setup-arm64.sh — what building v8walk for arm64 and running it in an emulated arm64 machine
# need on an x86-64 Debian host: the cross compiler, the arm64 libraries v8walk links against
# (multiarch), mmdebstrap and qemu. Idempotent: only what is missing is installed.
#   setup-arm64.sh          the cross toolchain and libraries, and the emulator's tools
#   setup-arm64.sh --build  the cross toolchain and libraries only
# libcriterion-dev cannot be installed for two architectures at once (its arm64 package would
# replace the host's): its arm64 library is unpacked into $ARM64_SYSROOT for the unit tests' link.
set -eu
. "$(dirname "$0")/lib/apt-missing.sh"

ARM64_SYSROOT=${ARM64_SYSROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/arm64/sysroot}

HOST_PKGS="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu pkg-config clang llvm bpftool"
VM_PKGS="qemu-system-arm mmdebstrap arch-test kmod cpio debian-archive-keyring"
# the arm64 libraries the build links (mbedTLS: net/tls_client.c); the native-frames comparison's
# libunwind is built from source (scripts/build-libunwind-arm64.sh)
ARM64_LIBS="libelf-dev:arm64 libdw-dev:arm64 libbpf-dev:arm64 zlib1g-dev:arm64 \
libiberty-dev:arm64 libmbedtls-dev:arm64 libzstd-dev:arm64"

case "$(uname -m)" in
aarch64 | arm64)
	echo "setup-arm64: this host is arm64; scripts/setup-deps.sh installs the native build" >&2
	exit 0
	;;
esac

want="$HOST_PKGS $ARM64_LIBS"
[ "${1:-}" = --build ] || want="$want $VM_PKGS"

# the arm64 libcriterion for the unit tests' link, unpacked (not installed)
criterion() {
	lib=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu/libcriterion.so
	[ -e "$lib" ] && return 0
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download libcriterion-dev:arm64 libcriterion3:arm64 >/dev/null 2>&1) ||
		{ apt-get update >/dev/null && (cd "$tmp" && apt-get download libcriterion-dev:arm64 libcriterion3:arm64); } ||
		{ echo "setup-arm64: cannot download libcriterion for arm64" >&2; rm -rf "$tmp"; exit 1; }
	mkdir -p "$ARM64_SYSROOT"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$ARM64_SYSROOT"; done
	rm -rf "$tmp"
}

# shellcheck disable=SC2086
if [ -n "$(missing_packages $want)" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	root=""
	[ "$(id -u)" = 0 ] || root=sudo
	$root dpkg --add-architecture arm64
	$root apt-get update
fi
# shellcheck disable=SC2086
install_missing setup-arm64 $want
criterion
