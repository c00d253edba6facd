#!/bin/sh
# setup-consumers.sh — install the programs that read v8walk's output formats in the tests
# (speedscope's built app, puppeteer-core to drive Debian's chromium) from the pinned lockfile
# in tests/consumers; idempotent: nothing is done when the installed tree matches the lockfile.
set -eu
cd "$(dirname "$0")/../tests/consumers"
stamp=node_modules/.v8walk-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
	exit 0
fi
echo "setup-consumers: npm ci in tests/consumers"
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
