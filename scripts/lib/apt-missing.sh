# apt-missing.sh — sourced by the setup scripts: install_missing TAG PACKAGE... installs, with apt,
# those of the Debian packages that are not installed yet (nothing when all are); TAG prefixes
# what it says. Waits up to 10 minutes for dpkg's lock when another install holds it.
install_missing() {
	tag=$1
	shift
	missing=""
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
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
