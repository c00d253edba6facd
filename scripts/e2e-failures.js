// e2e-failures.js — prints, after an end-to-end run, each failed test of each node and sampler
// with its message, read from the run's result files (tests/e2e/matrix-reporter.js writes them):
// the last lines of a long log then say what failed, where and why.
// Usage: e2e-failures.js DIR|FILE… (a directory: every .json in it)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const files = [];
for (const a of process.argv.slice(2)) {
  try {
    if (fs.statSync(a).isDirectory())
      files.push(...fs.readdirSync(a).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(a, f)));
    else files.push(a);
  } catch { /* no results there */ }
}
const lines = [];
for (const f of files) {
  let r;
  try { r = JSON.parse(fs.readFileSync(f, 'utf8')); } catch { continue; }
  for (const x of r.failures || [])
    lines.push(`--- FAILED on ${r.label || f} (${x.mode || '?'}): ${x.name}\n    at ${x.location}\n    ${x.error.replace(/\n/g, '\n    ')}`);
}
if (lines.length) console.log(`=== end-to-end failures: ${lines.length}\n${lines.join('\n')}`);
