#!/usr/bin/env node
// readme-usage.js — keeps the help, the README and the man page in step (`make readme`): writes
// the usage lines of `v8walk --help` between the README's `<!-- usage:begin -->` markers, and
// names every option of the help texts that docs/v8walk.1 has no item for (the man page is
// written by hand: this says what to add). With --check it changes nothing and exits 1 when the
// README's block differs (tests/scripts/readme_usage.test.js and manpage.test.js check the same).
//   V8WALK=build/v8walk scripts/readme-usage.js [--check]
'use strict';
const path = require('node:path');
const { readBlock, writeBlock } = require('./lib/readme-block');
const h = require('./lib/help-text');

// The block as it should be: the usage lines of the help in a code fence.
function usageBlock(v8walk = h.binary()) {
  const help = h.helpTexts(v8walk).main;
  return '\n```\n' + h.usageLines(help).join('\n') + '\n```\n';
}

// Options of the help texts without an item in the man page.
function manMissing(v8walk = h.binary()) {
  const items = h.manOptionItems(h.readManPage());
  const missing = [];
  for (const text of Object.values(h.helpTexts(v8walk)))
    for (const e of h.optionEntries(text)) for (const n of e.names) if (!items.has(n) && !missing.includes(n)) missing.push(n);
  return missing;
}

function main() {
  const v8walk = h.binary();
  const want = usageBlock(v8walk);
  let status = 0;
  if (process.argv.includes('--check')) {
    if (readBlock('usage').body !== want) {
      console.error('readme-usage: the usage block of README.md differs from `v8walk --help`; ' +
        'run `make readme` and commit README.md');
      status = 1;
    }
  } else {
    writeBlock('usage', want);
  }
  const missing = manMissing(v8walk);
  if (missing.length) {
    console.error(`readme-usage: ${path.relative(process.cwd(), h.MAN_PAGE)} has no item for ${missing.join(', ')}: ` +
      'add them to its OPTIONS (tests/scripts/manpage.test.js fails until then)');
    status = 1;
  }
  process.exit(status);
}

if (require.main === module) main();
module.exports = { usageBlock, manMissing };
