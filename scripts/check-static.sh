#!/bin/sh
# check-static.sh BINARY LINK_LOG [READELF] — the release binary needs nothing from the host it
# runs on: no program interpreter, no shared library, no NSS module (users, groups, host names),
# no shared object loaded at run time. LINK_LOG is what the linker said while it traced the
# functions that would need them (-Wl,--trace-symbol=..., GNUmakefile STATIC_TRACE): none of them
# may be referenced, and no warning may be there (glibc's "Using 'getpwnam' in statically linked
# applications requires at runtime the shared libraries..." is one). glibc's own static dlopen
# stays linked in for its iconv, which only setlocale to another charset reaches; v8walk never
# calls setlocale, the trace shows it.
set -eu
bin=$1 log=$2 readelf=${3:-readelf}
fail() { echo "check-static: $bin: $*" >&2; exit 1; }

[ -x "$bin" ] || fail "not an executable file"
[ -r "$log" ] || fail "no link log $log"
if "$readelf" -lW "$bin" | grep -q 'Requesting program interpreter'; then
	fail "it names a program interpreter"
fi
needed=$("$readelf" -dW "$bin" 2>/dev/null | grep '(NEEDED)' || true)
[ -z "$needed" ] || fail "it needs shared libraries: $needed"
warnings=$(grep -i 'warning' "$log" || true)
[ -z "$warnings" ] || fail "the linker warned: $(echo "$warnings" | tr '\n' ';')"
refs=$(grep 'reference to ' "$log" | sed 's/.*(\(.*\)): reference to \(.*\)/\1 uses \2/' || true)
[ -z "$refs" ] || fail "it calls what needs NSS or a shared object at run time: $(echo "$refs" | tr '\n' ';')"
echo "check-static: $bin: static, no interpreter, no shared library, no NSS or dlopen caller"
