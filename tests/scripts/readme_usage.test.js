// readme_usage.test.js — the README's usage block is exactly the usage lines `v8walk --help`
// begins with (`make readme` rewrites it), so a form added to one cannot be missing from the other.
// The options themselves are the man page's to list: manpage.test.js checks them.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const { readBlock } = require(path.join(root, 'scripts', 'lib', 'readme-block.js'));
const { usageBlock } = require(path.join(root, 'scripts', 'readme-usage.js'));

test("the README's usage block is the usage lines of v8walk --help (make readme rewrites it)", () => {
  const usage = usageBlock();
  for (const form of ['--pid PID', '-- node app.js', 'top --pid', '--dump', '--core FILE', 'report --from', 'schema'])
    assert.ok(usage.includes(form), `the usage lines hold ${form}`);
  assert.strictEqual(readBlock('usage').body, usage, 'README.md differs from `v8walk --help`: run `make readme`');
});
