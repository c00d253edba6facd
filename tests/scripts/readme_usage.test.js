// readme_usage.test.js — the README's usage block is exactly what `v8walk --help` prints
// (`make readme` rewrites it), so an option added to one cannot be missing from the other.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const { readBlock } = require(path.join(root, 'scripts', 'lib', 'readme-block.js'));
const { usageBlock } = require(path.join(root, 'scripts', 'readme-usage.js'));

test("the README's usage block is v8walk --help (make readme rewrites it)", () => {
  const v8walk = process.env.V8WALK || path.join(root, 'build', 'v8walk');
  const help = usageBlock(v8walk);
  for (const option of ['--pid', '--core', '--quiet', '--help', '--version']) assert.ok(help.includes(option), option);
  assert.strictEqual(readBlock('usage').body, help, 'README.md differs from `v8walk --help`: run `make readme`');
});
