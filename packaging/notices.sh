#!/bin/sh
# notices.sh IN OUT — THIRD_PARTY_NOTICES for a release: IN, then the exact Debian packages
# whose archives the static binary was linked from (found by asking the compiler, $CC, where
# each archive is, and dpkg which package holds it). Environment: VERSION, ARCH, CC.
set -eu
in=$1 out=$2
cc=${CC:-gcc}
{
	cat "$in"
	printf '\n%s\n' "------------------------------------------------------------------------------------------------"
	printf 'Linked into v8walk %s for linux-%s, from these Debian packages:\n' "$VERSION" "$ARCH"
	for lib in libelf.a libdw.a libbpf.a libz.a liblzma.a libbz2.a libzstd.a libmbedtls.a \
		libmbedx509.a libmbedcrypto.a libiberty.a libc.a libgcc.a libgcc_eh.a; do
		path=$("$cc" -print-file-name="$lib")
		real=$(readlink -f "$path")
		pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | sed 's/: .*//' || true)
		[ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | sed 's/: .*//' || true)
		if [ -n "$pkg" ]; then
			dpkg-query -W -f="  $lib: \${Package} \${Version} (source \${source:Package} \${source:Version})\n" "$pkg"
		else
			echo "  $lib: $real (no Debian package holds it)"
		fi
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
