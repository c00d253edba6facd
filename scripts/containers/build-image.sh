#!/bin/sh
# build-image.sh — the agent image (contrib/container/Containerfile) from a v8walk binary:
#   build-image.sh BINARY TAG [ARCHIVE]
# A static binary gets an image FROM scratch; a dynamically linked one is put on bookworm-runtime
# (scripts/containers/images.js: Debian's libraries for it). The image goes into the container
# tests' podman storage (scripts/containers/podman.sh) and, with ARCHIVE, into an OCI archive that
# `podman load`, `docker load` or a Kubernetes node's `ctr images import` take.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$1
tag=$2
archive=${3:-}
[ -x "$bin" ] || { echo "build-image: no v8walk binary at $bin (make, or make dist)" >&2; exit 1; }
cas=/etc/ssl/certs/ca-certificates.crt
[ -r "$cas" ] || { echo "build-image: no CA bundle at $cas (apt-get install ca-certificates)" >&2; exit 1; }
if readelf -lW "$bin" | grep -q "Requesting program interpreter"; then
	base=$(node "$here/images.js" bookworm-runtime | cut -f1)
	echo "build-image: $bin is dynamically linked: the image starts from $base (make dist builds the static binary)" >&2
else
	base=scratch
fi
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp "$bin" "$ctx/v8walk"
cp "$cas" "$ctx/ca-certificates.crt"
"$here/podman.sh" build --quiet --build-arg "BASE=$base" -f "$root/contrib/container/Containerfile" -t "$tag" "$ctx" >/dev/null
if [ -n "$archive" ]; then
	rm -f "$archive"
	"$here/podman.sh" save --quiet --format oci-archive -o "$archive" "$tag"
fi
"$here/podman.sh" image inspect --format '{{.Id}} {{.Size}}' "$tag" | {
	read -r id size
	echo "build-image: $tag ($id), $((size / 1024)) KiB${archive:+, saved as $archive}"
}
