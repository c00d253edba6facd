// dump.test.js — `--pid N --dump`: every thread's mixed stack once, as text and as JSON, with the
// target paused only while each stack is copied and walked.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const h = require('./harness');

test('--dump --json: every thread, frames innermost first, JS named', async (t) => {
  const fx = await h.startFixture('workers.js');
  t.after(() => fx.stop());
  // A dump is one instant: both workers can be between iterations of their loop. Dump again
  // (each attempt is checked in full) until one catches a worker in workerLeaf, at most five times.
  let r;
  let d;
  for (let attempt = 0; attempt < 5; attempt++) {
    r = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json']);
    assert.strictEqual(r.code, 0, r.stderr);
    d = JSON.parse(r.stdout);
    if (d.threads.some((th) => th.frames.some((f) => f.kind === 'js' && f.name === 'workerLeaf'))) break;
  }
  assert.strictEqual(d.pid, fx.pid);
  assert.match(d.runtime, /^Node \d+\.\d+\.\d+ \(V8 [\d.]+\)$/);
  const tids = fs.readdirSync(`/proc/${fx.pid}/task`).map(Number).sort((a, b) => a - b);
  assert.deepStrictEqual(d.threads.map((x) => x.tid).sort((a, b) => a - b), tids, 'every thread');
  assert.strictEqual(d.threads[0].tid, fx.pid, 'main thread first');
  assert.strictEqual(d.threads[0].name, 'main');
  for (const th of d.threads) {
    for (const f of th.frames) {
      assert.ok(['js', 'inlined', 'async', 'native', 'builtin', 'frame-type', 'wasm', 'unknown'].includes(f.kind), f.kind);
      for (const k of ['name', 'file', 'line', 'column', 'pc', 'module']) assert.ok(k in f, `${k} in frame`);
    }
  }
  // both workers are busy in workerOuter → workerLeaf: innermost first
  const busy = d.threads.filter((th) => th.frames.some((f) => f.kind === 'js' && f.name === 'workerLeaf'));
  assert.ok(busy.length >= 1, 'a worker caught in workerLeaf in one of five dumps');
  for (const th of busy) {
    const js = th.frames.filter((f) => f.kind === 'js');
    const i = js.findIndex((f) => f.name === 'workerLeaf');
    assert.strictEqual(js[i + 1].name, 'workerOuter');
    assert.strictEqual(js[i].file, fx.ready.file);
    assert.ok(js[i].line > 0 && js[i].column > 0);
    assert.ok(th.frames.some((f) => f.kind === 'native' && f.name === 'uv_run' && f.module), 'native frames with module');
    assert.ok(th.pause_us > 0);
  }
  assert.match(r.stderr, /paused only while its stack was copied and walked: \d+ us in all/);
  assert.ok(await fx.ping(), fx.describe());
  assert.strictEqual(h.tracerPid(fx.pid), 0);
});

test('--dump text: one block per thread', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const r = await h.runV8walk(['--pid', String(fx.pid), '--dump']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^Process ${fx.pid} \\([^)]+\\): Node `));
  assert.match(r.stdout, new RegExp(`\\nThread ${fx.pid} "main" \\(`));
  assert.match(r.stdout, /  #0 {3}0x[0-9a-f]{16} /);
  assert.match(r.stdout, /#\d+ +0x[0-9a-f]{16} uv_run \((node|libuv[^)]*)\)\n/);
  assert.ok(await fx.ping(), fx.describe());
});

test('--json without --dump is refused', async () => {
  const r = await h.runV8walk(['--pid', '1', '--json']);
  assert.strictEqual(r.code, 2);
  assert.match(r.stderr, /--json goes with --dump/);
});
