#!/bin/sh
# setup.sh — what the container tests need on the machine, installed only when missing
# (idempotent): Debian's podman with crun and catatonit (rootful), mmdebstrap for the images' root
# filesystems, ca-certificates for the agent image; then the podman configuration the tests use
# (scripts/containers/podman.sh): storage under the cache directory, apart from any other use of
# podman here; cgroupfs as the cgroup manager when systemd is not the init; events in a file; the
# host's network (the tests' servers listen on loopback only); resource limits the machine allows.
#
# crun refuses a hybrid cgroup layout where a controller is bound to the unified (v2) hierarchy
# while the others are v1 ("cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2"). Such a controller, unused in v2 (no cgroup enables it), is mounted as a v1
# hierarchy of its own under /sys/fs/cgroup, which moves it out of v2.
set -eu
here=$(dirname "$0")
. "$here/../lib/apt-missing.sh"
. "$here/env.sh"

install_missing setup-containers podman crun catatonit conmon mmdebstrap ca-certificates

unified=/sys/fs/cgroup/unified
if [ -r "$unified/cgroup.controllers" ] && [ -d /sys/fs/cgroup/memory ]; then
	for c in $(cat "$unified/cgroup.controllers"); do
		if [ -n "$(cat "$unified/cgroup.subtree_control")" ]; then
			echo "setup-containers: the cgroup controller $c is in use in cgroup v2 while the others are v1; crun cannot run containers here" >&2
			break
		fi
		echo "setup-containers: mounting the $c cgroup controller as v1 (crun needs one cgroup mode)"
		mkdir -p "/sys/fs/cgroup/$c"
		mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c"
	done
fi

mkdir -p "$V8WALK_CT_CACHE/podman"
write_if_changed() { # file content
	if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then
		printf '%s\n' "$2" >"$1"
	fi
}
manager=cgroupfs
[ -d /run/systemd/system ] && manager=systemd
# podman raises a container's open-file and process limits past what a process without
# CAP_SYS_RESOURCE may set (crun: "setrlimit RLIMIT_NOFILE: Operation not permitted"): give it the
# machine's own hard limit for files, and a process limit well below any machine's
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
write_if_changed "$V8WALK_CT_CACHE/podman/containers.conf" "[containers]
netns = \"host\"
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=16384:16384\"]
[engine]
cgroup_manager = \"$manager\"
events_logger = \"file\"
runtime = \"crun\""
# run state of its own for each cache directory (two storages must not share one)
runroot=/run/v8walk-containers/$(printf '%s' "$V8WALK_CT_CACHE" | cksum | cut -d' ' -f1)
write_if_changed "$V8WALK_CT_CACHE/podman/storage.conf" "[storage]
driver = \"overlay\"
graphroot = \"$V8WALK_CT_CACHE/podman/storage\"
runroot = \"$runroot\""
