#!/usr/bin/env node
// arm64-part.js — which end-to-end tests `make check-arm64` runs in the emulated arm64 machine on
// each Node build: every test tests/e2e/capabilities.js names (so that the support table's arm64
// rows are written from the same tests as its x86-64 rows), and beside them one test of each
// capability the table has no column for (await chains, the output formats that need no
// browser, source maps, top, WebAssembly, native frames against libunwind's, npx of the dist
// packages). Prints
// them as one regular expression for node's --test-name-pattern (scripts/arm64-guest.sh's default
// ARM64_E2E_PATTERN); --list prints the names and patterns one per line.
'use strict';
const path = require('node:path');

const capabilities = require(path.join(__dirname, '..', 'tests', 'e2e', 'capabilities.js'));

// the results name every test of the eBPF pass "[bpf] …"; a test of the eBPF pass alone is
// declared with that prefix, the others without it
const BPF = '[bpf] ';

// beyond the table's columns (beginnings of test names)
const EXTRA = [
  '[async] sampled await chains are the async frames of Error.stack',
  'cpuprofile: the main thread as V8 writes it',
  'speedscope JSON: one sampled profile per thread',
  'svg and tree: frame totals agree with folded',
  'sampled profile of esbuild bundle (minified)',
  '--dump of tsc sourceMap',
  'top batch (stdout not a terminal)',
  'loader frames are named',
  'WebAssembly code is named by its module',
  "native frames: v8walk's match libunwind's at the same stop",
  'npx v8walk@VERSION from a registry holding only the dist packages',
];

const escape = (s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

function names() {
  const out = new Set();
  for (const cap of capabilities)
    for (const n of cap.tests) out.add(n.startsWith(BPF) ? n.slice(BPF.length) : n);
  return [...out];
}

function pattern() {
  return [...names().map((n) => `^(${escape(BPF)})?${escape(n)}$`), ...EXTRA.map((n) => `^${escape(n)}`)].join('|');
}

if (require.main === module) {
  if (process.argv.includes('--list')) console.log([...names(), ...EXTRA.map((n) => `${n} …`)].join('\n'));
  else process.stdout.write(pattern() + '\n');
}
module.exports = { names, pattern, EXTRA };
