# apt-missing.sh — sourced by the setup scripts: missing_packages PACKAGE... prints those of the
# Debian packages that are not installed (each after a space); install_missing TAG PACKAGE...
# installs them with apt (nothing when all are); TAG prefixes what it says. A name without an
# architecture is this machine's package (or an architecture-independent one): another
# architecture's copy (multiarch: libzstd-dev:arm64 for a cross build) does not count. Waits up
# to 10 minutes for dpkg's lock when another install holds it.
missing_packages() {
	native=$(dpkg --print-architecture)
	for p in "$@"; do
		case $p in
		*:*) want=$p ;;
		*) want="$p:$native" ;;
		esac
		dpkg-query -W -f='${Package}:${Architecture} ${Status}\n' "$p" 2>/dev/null |
			sed "s/:all /:$native /" | grep -qx "$want install ok installed" || printf ' %s' "$p"
	done
}

install_missing() {
	tag=$1
	shift
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return 0
	echo "$tag: installing$missing"
	if [ "$(id -u)" = 0 ]; then
		SUDO=""
	elif command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "$tag: need root to install:$missing" >&2
		return 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	lock="-o DPkg::Lock::Timeout=600"
	# shellcheck disable=SC2086
	if ! $SUDO apt-get $lock install -y --no-install-recommends $missing; then
		$SUDO apt-get $lock update
		$SUDO apt-get $lock install -y --no-install-recommends $missing
	fi
}
