#!/usr/bin/env node
// readme-usage.js — the README's usage block is `v8walk --help`, verbatim: this writes it between
// the `<!-- usage:begin -->` markers (`make readme`), or with --check says whether README.md and
// --help differ (tests/scripts/readme_usage.test.js), so the two cannot drift.
//   V8WALK=build/v8walk scripts/readme-usage.js [--check]
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { readBlock, writeBlock } = require('./lib/readme-block');

// The block as it should be: the help text in a code fence.
function usageBlock(v8walk) {
  const help = execFileSync(v8walk, ['--help'], { encoding: 'utf8' });
  return '\n```\n' + help.replace(/\n*$/, '\n') + '```\n';
}

function main() {
  const v8walk = process.env.V8WALK || path.resolve(__dirname, '..', 'build', 'v8walk');
  const want = usageBlock(v8walk);
  if (process.argv.includes('--check')) {
    if (readBlock('usage').body !== want) {
      console.error('readme-usage: the usage block of README.md differs from `v8walk --help`; ' +
        'run `make readme` and commit README.md');
      process.exit(1);
    }
    return;
  }
  writeBlock('usage', want);
}

if (require.main === module) main();
module.exports = { usageBlock };
