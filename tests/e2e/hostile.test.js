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

test('escape sequences in a process title and a thread name never reach the terminal raw', async (t) => {
  const fx = await h.startFixture('hostile.js');
  t.after(() => fx.stop());
  assert.ok(fx.ready.title.includes('\x1b'), 'the title holds ESC');
  assert.ok(fx.ready.threadName.includes('\x1b'), 'the thread name holds ESC');
  const txt = await h.runV8walk(['--pid', String(fx.pid), '--dump']);
  assert.strictEqual(txt.code, 0, txt.stderr);
  for (const [what, s] of [['stdout', txt.stdout], ['stderr', txt.stderr]]) {
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f]/.test(s), `no raw control byte in ${what}: ${JSON.stringify(s.slice(0, 400))}`);
    assert.ok(!/[\u0080-\u009f]/.test(s), `no raw C1 control in ${what}`);
  }
  assert.match(txt.stdout, new RegExp(`Thread ${fx.ready.threadTid} "\\\\x1b\\[31mred\\\\xc2\\\\x9b\\\\x07"`));
  const j = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json']);
  assert.strictEqual(j.code, 0, j.stderr);
  assert.ok(!/[\x00-\x1f\x7f]/.test(j.stdout.replace(/\n/g, '')), 'no raw control byte in JSON');
  const d = JSON.parse(j.stdout);
  const th = d.threads.find((x) => x.tid === fx.ready.threadTid);
  assert.strictEqual(th.name, fx.ready.threadName);
  assert.strictEqual(d.comm, Buffer.from(fx.ready.title).subarray(0, 15).toString());
  // a profile: the call tree and the folded stacks name the process and its threads too
  for (const fmt of ['--text', '--raw']) {
    const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', fmt]);
    assert.strictEqual(r.code, 0, r.stderr);
    for (const [what, s] of [['stdout', r.stdout], ['stderr', r.stderr]]) {
      assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]/.test(s), `${fmt}: no raw control in ${what}: ${JSON.stringify(s.slice(0, 400))}`);
    }
    assert.match(r.stdout, /\\x1b\]0:PWN|\\x1b\]0;PWN/, `${fmt}: the title shown escaped`);
  }
  assert.ok(await fx.ping(), fx.describe());
});
