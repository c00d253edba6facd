# apt.sh — sourced by the setup scripts (setup-deps.sh, setup-arm64.sh): which Debian packages are
# missing, and installing them as root or through sudo, the package lists updated once when the
# first try fails.

# apt_missing PKG... — prints the packages not installed (each after a space)
apt_missing() {
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf ' %s' "$p"
	done
}

# as_root WHO CMD... — runs CMD as root (itself, or through sudo); WHO names the script in the error
as_root() {
	who=$1
	shift
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "$who: need root for: $*" >&2
		exit 1
	fi
}

# apt_install WHO PKG... — installs the packages (none: nothing is done)
apt_install() {
	who=$1
	shift
	[ $# = 0 ] && return 0
	echo "$who: installing $*"
	export DEBIAN_FRONTEND=noninteractive
	as_root "$who" apt-get install -y --no-install-recommends "$@" ||
		{ as_root "$who" apt-get update && as_root "$who" apt-get install -y --no-install-recommends "$@"; }
}
