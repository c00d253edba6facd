#!/bin/sh
# deb.sh OUT BINARY MAN_PAGE NOTICES — the Debian package, built with dpkg-deb from a staged
# tree: the binary in /usr/bin, the man page gzipped in /usr/share/man/man1, the machine-readable
# copyright, THIRD_PARTY_NOTICES and the changelog in /usr/share/doc/v8walk, lintian's
# overrides for the static binary (packaging/deb/lintian-overrides says why); control and
# md5sums; owned by root, times from the last commit. Then lintian: an error fails the build.
# Environment: VERSION, DEB_ARCH, STAGE; MAINTAINER (the Maintainer field).
# The version is v8walk's own, without a Debian revision: a native package, whose changelog is
# changelog.gz (Debian policy 12.7; changelog.Debian.gz is for a package of someone else's
# release).
set -eu
out=$1 bin=$2 man=$3 notices=$4
here=$(dirname "$0")/deb
maintainer=${MAINTAINER:?MAINTAINER names the package maintainer}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
commit=$(scripts/commit-id.sh)
root=$STAGE/deb/root
doc=$root/usr/share/doc/v8walk
rm -rf "$STAGE/deb"
mkdir -p "$root/DEBIAN" "$root/usr/share/man/man1" "$doc" "$(dirname "$out")"

install -D -m 0755 "$bin" "$root/usr/bin/v8walk"
gzip -9n <"$man" >"$root/usr/share/man/man1/v8walk.1.gz"
install -m 0644 "$here/copyright" "$doc/copyright"
install -m 0644 "$notices" "$doc/THIRD_PARTY_NOTICES"
{
	printf 'v8walk (%s) unstable; urgency=medium\n\n' "$VERSION"
	printf '  * Release %s, built from commit %s.\n\n' "$VERSION" "$commit"
	printf ' -- %s  %s\n' "$maintainer" "$(LC_ALL=C date -u -R -d "@$epoch")"
} | gzip -9n >"$doc/changelog.gz"
install -D -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/v8walk"
chmod 0644 "$root/usr/share/man/man1/v8walk.1.gz" "$doc/changelog.gz"

size=$(du -sk --apparent-size "$root/usr" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@DEB_ARCH@/$DEB_ARCH/" -e "s/@SIZE@/$size/" \
	-e "s|@MAINTAINER@|$maintainer|" "$here/control.in" >"$root/DEBIAN/control"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$epoch" {} +

SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$root" "$out.tmp.deb" >/dev/null
if ! lintian --fail-on error --suppress-tags-from-file /dev/null "$out.tmp.deb"; then
	echo "deb: lintian found errors in $out (see above)" >&2
	rm -f "$out.tmp.deb"
	exit 1
fi
mv "$out.tmp.deb" "$out"
echo "deb: $out"
