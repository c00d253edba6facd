#!/bin/sh
# build-libunwind-arm64.sh — libunwind 1.8.1 cross-built for arm64 as static archives, for the
# native-frames comparison in the emulated arm64 machine (build/arm64/libunwind-compare). Prints
# the install prefix (PREFIX/include, PREFIX/lib/libunwind-ptrace.a, …).
#
# Why not Debian bookworm's libunwind-dev:arm64 (1.6.2): on aarch64 its unw_step, where a pc has
# no CFI (V8's generated code), falls back to the link register once and then ends the stack
# (src/aarch64/Gstep.c), so nothing below the first V8 frame is ever reached; and it does not know
# DW_CFA_AARCH64_negate_ra_state, so a return address signed by pointer authentication is used as
# it is. libunwind 1.7.0 learned the second, 1.8 follows the frame records (x29) where CFI is
# missing. The source is Debian trixie's upstream tarball (deb-src through apt, which checks it
# against the archive's signed index), checked again here against its pinned SHA-256; the build is
# cached outside the repository.
set -eu

VERSION=1.8.1
SHA256=ddf0e32dd5fafe5283198d37e4bf9decf7ba1770b6e7e006c33e6df79e6a6157
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/arm64
PREFIX=$CACHE/libunwind-$VERSION
TARBALL=$CACHE/src/libunwind_$VERSION.orig.tar.gz

die() {
	echo "build-libunwind-arm64: $*" >&2
	exit 1
}

if [ -f "$PREFIX/lib/libunwind-ptrace.a" ] && [ -f "$PREFIX/lib/libunwind-aarch64.a" ]; then
	echo "$PREFIX"
	exit 0
fi
command -v aarch64-linux-gnu-gcc >/dev/null || die "no aarch64-linux-gnu-gcc (scripts/setup-arm64.sh installs it)"

# the source: trixie's deb-src, through an apt configuration of its own (the host's sources stay
# as they are)
if ! echo "$SHA256  $TARBALL" | sha256sum -c --quiet >/dev/null 2>&1; then
	apt_dir=$(mktemp -d)
	trap 'rm -rf "$apt_dir"' EXIT
	mkdir -p "$apt_dir/lists/partial" "$CACHE/src"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
		>"$apt_dir/sources.list"
	set -- -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt_dir/lists"
	apt-get "$@" update >/dev/null 2>&1 || die "apt-get update of trixie's sources failed"
	# only the upstream tarball is needed: the Debian packaging files may be missing from a mirror
	(cd "$apt_dir" && apt-get "$@" source --download-only "libunwind=$VERSION-0.1" >/dev/null 2>&1) || true
	[ -f "$apt_dir/libunwind_$VERSION.orig.tar.gz" ] || die "could not download libunwind_$VERSION.orig.tar.gz from trixie's sources"
	mv "$apt_dir/libunwind_$VERSION.orig.tar.gz" "$TARBALL"
	echo "$SHA256  $TARBALL" | sha256sum -c --quiet >/dev/null 2>&1 || die "$TARBALL: SHA-256 is not $SHA256"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf "$TARBALL" -C "$work"
echo "build-libunwind-arm64: building libunwind $VERSION for arm64 (static)" >&2
(
	cd "$work/libunwind-$VERSION"
	./configure --host=aarch64-linux-gnu --prefix="$PREFIX" --disable-shared --enable-static \
		--disable-minidebuginfo --disable-zlibdebuginfo --disable-tests --disable-documentation \
		--disable-cxx-exceptions CFLAGS="-O2 -g" >"$work/build.log" 2>&1 &&
		make -j"$(nproc)" >>"$work/build.log" 2>&1 && make install >>"$work/build.log" 2>&1
) || {
	tail -20 "$work/build.log" >&2
	die "the build failed"
}
echo "$PREFIX"
