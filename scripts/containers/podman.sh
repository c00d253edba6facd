#!/bin/sh
# podman.sh — podman with the configuration of the container tests (scripts/containers/setup.sh
# writes it): their own storage under the cache directory, so their images and containers stay
# apart from any other use of podman on the machine. Arguments are podman's.
. "$(dirname "$0")/env.sh"
export CONTAINERS_CONF="$V8WALK_CT_CACHE/podman/containers.conf"
export CONTAINERS_STORAGE_CONF="$V8WALK_CT_CACHE/podman/storage.conf"
exec podman "$@"
