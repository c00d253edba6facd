#!/bin/sh
# tarball.sh OUT BINARY MAN_PAGE NOTICES — the release tarball: v8walk-VERSION-linux-ARCH/ with
# the binary, the man page, README.md, LICENSE and THIRD_PARTY_NOTICES; owned by root, files in
# name order, times from the last commit (SOURCE_DATE_EPOCH), so the same tree gives the same
# tarball. Environment: VERSION, ARCH, STAGE (a scratch directory).
set -eu
out=$1 bin=$2 man=$3 notices=$4
name=v8walk-$VERSION-linux-$ARCH
dir=$STAGE/tarball/$name
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
rm -rf "$STAGE/tarball"
mkdir -p "$dir" "$(dirname "$out")"
install -m 0755 "$bin" "$dir/v8walk"
install -m 0644 "$man" "$dir/v8walk.1"
install -m 0644 README.md LICENSE "$dir/"
install -m 0644 "$notices" "$dir/THIRD_PARTY_NOTICES"
tar -C "$STAGE/tarball" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
	-cf - "$name" | gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
echo "tarball: $out"
