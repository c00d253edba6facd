# env.sh — sourced by the container scripts: where the container cache lives (root filesystems,
# images, podman's storage), keyed by what each thing was built from.
V8WALK_CT_CACHE=${V8WALK_CT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/containers}
export V8WALK_CT_CACHE
