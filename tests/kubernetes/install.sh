#!/bin/sh
# install.sh — the Kubernetes schema check's packages (package-lock.json: kubernetes-models, the
# Kubernetes API's schemas compiled from its OpenAPI, and yaml), with `npm ci` when missing or
# changed; nothing when installed.
set -eu
cd "$(dirname "$0")"
stamp=node_modules/.installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
	npm ci --no-audit --no-fund --loglevel=error
	touch "$stamp"
fi
