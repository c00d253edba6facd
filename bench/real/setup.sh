#!/bin/sh
# setup.sh — install the real workloads' npm packages (pinned by package-lock.json, `npm ci`) and
# build their generated inputs (gen/bundle.js, the 11.8 MB one-line bundle); idempotent: each step
# runs only when its output is missing or older than what it is made from.
set -eu
cd "$(dirname "$0")"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "bench/real/setup.sh: npm ci" >&2
	npm ci --no-audit --no-fund --loglevel=error
fi

mkdir -p gen
if [ ! -s gen/bundle.js ] || [ -n "$(find workloads/bundle-entry.js lib node_modules/.package-lock.json -newer gen/bundle.js 2>/dev/null | head -1)" ]; then
	echo "bench/real/setup.sh: bundling gen/bundle.js" >&2
	node -e "
require('esbuild').buildSync({
  entryPoints: ['workloads/bundle-entry.js'], bundle: true, platform: 'node', format: 'cjs', outfile: 'gen/bundle.js.tmp',
  minifyWhitespace: true, legalComments: 'none', logLevel: 'warning',
  supported: { 'template-literal': false }, // template literals would keep their newlines
});
const fs = require('fs');
const text = fs.readFileSync('gen/bundle.js.tmp', 'utf8').replace(/\n$/, '');
if (text.includes('\n')) throw new Error('gen/bundle.js is not a single line');
if (text.length < 10e6) throw new Error('gen/bundle.js is only ' + text.length + ' bytes, not 10+ MB');
fs.renameSync('gen/bundle.js.tmp', 'gen/bundle.js');
"
fi
