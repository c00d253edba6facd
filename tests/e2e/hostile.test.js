// hostile.test.js — target-controlled text never reaches the operator raw: a name holding U+0000
// is read as the counted byte string it is, and escape sequences in a process title or thread
// name come out as visible escapes in text and as JSON escapes in --json.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const h = require('./harness');

// Dump until the main thread is caught inside the method (it spins there most of the time).
async function dumpInMethod(fx, args) {
  let r;
  for (let attempt = 0; attempt < 10; attempt++) {
    r = await h.runV8walk(['--pid', String(fx.pid), '--dump', ...args]);
    assert.strictEqual(r.code, 0, r.stderr);
    if (/bcdefgh/.test(r.stdout)) return r;
  }
  assert.fail(`the method never showed in ten dumps:\n${r.stdout}`);
}

test('a method name holding U+0000 is shown whole (JSON and escaped text)', async (t) => {
  const fx = await h.startFixture('hostile.js');
  t.after(() => fx.stop());
  assert.strictEqual(fx.ready.method, 'a\u0000bcdefgh');
  const j = await dumpInMethod(fx, ['--json']);
  const d = JSON.parse(j.stdout);
  const main = d.threads.find((th) => th.tid === fx.pid);
  const names = main.frames.filter((f) => f.kind === 'js').map((f) => f.name);
  assert.ok(names.some((n) => n.endsWith(`${fx.ready.method}]`) || n.endsWith(fx.ready.method)),
    `JSON names: ${JSON.stringify(names)} (Error.stack: ${JSON.stringify(fx.ready.truth)})`);
  const txt = await dumpInMethod(fx, []);
  assert.match(txt.stdout, /a\\x00bcdefgh\]? \(/, 'the name with its NUL escaped, then the file');
  assert.ok(!txt.stdout.includes('\0'), 'no raw NUL byte in text output');
  assert.ok(await fx.ping(), fx.describe());
});
