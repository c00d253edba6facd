#!/bin/sh
# fetch-debian-node.sh — Debian's own node, which is built as a shared library (nodejs links
# libnode.so.NNN), unpacked into the cache so that the system's node stays as it is. Prints
# "BINARY LIBDIR": run BINARY with LD_LIBRARY_PATH=LIBDIR.
#
# Debian's node also loads a few of its JavaScript builtins from /usr/share/nodejs at run time
# (node-cjs-module-lexer, node-acorn, node-undici) and links the system's libuv, c-ares, brotli,
# nghttp2 and ICU: those are installed with apt; they do not touch /usr/bin/node.
set -eu

CACHE=${V8WALK_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/node}/debian
RUNTIME_PKGS="libuv1 libc-ares2 libbrotli1 libnghttp2-14 libicu72 node-cjs-module-lexer node-acorn node-undici"

# The Debian (not nodesource) version of a package: the newest one served by deb.debian.org.
debian_version() {
	apt-cache madison "$1" | awk -F'|' '/debian\.org/ { gsub(/ /, "", $2); print $2; exit }'
}

missing=""
for p in $RUNTIME_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "fetch-debian-node: installing$missing" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2 ||
		{ apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2; }
fi

v=$(debian_version nodejs)
if [ -z "$v" ]; then
	echo "fetch-debian-node: no Debian nodejs package in the apt sources" >&2
	exit 1
fi
libnode=$(apt-cache depends "nodejs=$v" | awk '/Depends: libnode[0-9]/ { print $2; exit }')
dir=$CACHE/$v
bin=$dir/root/usr/bin/nodejs
lib=$dir/root/usr/lib/x86_64-linux-gnu
if [ ! -x "$bin" ] || ! LD_LIBRARY_PATH=$lib "$bin" --version >/dev/null 2>&1; then
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	(cd "$dir/debs" && apt-get download "nodejs=$v" "$libnode=$v" >&2 2>/dev/null) ||
		(cd "$dir/debs" && apt-get update >&2 && apt-get download "nodejs=$v" "$libnode=$v" >&2)
	for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
	rm -rf "$dir/debs"
fi
echo "$bin $lib"
