// core.test.js — `--core FILE`: real cores of node processes that died (process.abort(), an uncaught
// exception under --abort-on-uncaught-exception, a native CHECK failing inside a worker thread)
// and gdb's gcore of a live process, walked by v8walk and compared with what the process said
// about itself just before: its own `new Error().stack`, and node's own printed JavaScript stack
// where it prints one. The gcore case also checks parity with a live --dump taken just before
// (the same walker over two memory sources).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const h = require('./harness');
const k = require('./corekit');

const NODE_MAJOR = Number(/^v(\d+)/.exec(h.nodeVersion())[1]);

const CASES = [
  { mode: 'abort', nodeArgs: [], signal: 6, name: 'main', native: /^node::Abort$/ },
  { mode: 'throw', nodeArgs: ['--abort-on-uncaught-exception'], signal: 5, name: 'main',
    native: /^v8::base::OS::Abort$/ },
  { mode: 'worker', nodeArgs: ['--expose-internals'], signal: 6, name: 'worker',
    native: /^node::(Abort|Assert)$/ },
];

for (const c of CASES) {
  test(`[cores] kernel core (${c.mode}): every thread, the crashed one first, its JS frames as the process saw them`, async (t) => {
    const fx = await k.crashFixture(t, c.mode, { nodeArgs: c.nodeArgs });
    const r = await k.coreJson(['--core', fx.core]);
    assert.strictEqual(r.code, 0, r.stderr);
    const d = r.dump;
    assert.match(d.runtime, new RegExp(`^Node ${NODE_MAJOR}\\.`));
    assert.deepStrictEqual(d.warnings, []);
    // every thread the core holds, the crashed thread first and only it marked
    const layout = k.readLayout(fx.core);
    assert.deepStrictEqual(d.threads.map((x) => x.tid).sort(), layout.threads.map((x) => x.tid).sort());
    const crashed = d.threads[0];
    assert.strictEqual(crashed.tid, fx.truth.tid, 'the thread that died comes first');
    assert.strictEqual(crashed.crashed, true);
    assert.strictEqual(crashed.signal, c.signal);
    assert.strictEqual(d.threads.filter((x) => x.crashed).length, 1);
    assert.strictEqual(crashed.name, c.name);
    assert.strictEqual(crashed.truncated, false, 'the walk reached the outermost frame');
    assert.ok(d.threads.some((x) => x.tid === d.pid && x.name === 'main'), 'the main thread is there');
    // native frames interleaved: the abort path above the JS frames, the event loop below
    const names = crashed.frames.map((f) => f.name);
    const firstJs = crashed.frames.findIndex((f) => f.kind === 'js');
    const abortAt = names.findIndex((n) => c.native.test(n));
    assert.ok(abortAt >= 0 && abortAt < firstJs, `${c.native} above the JS frames: ${names}`);
    assert.ok(names.lastIndexOf('uv_run') > firstJs, 'uv_run below the JS frames');
    // node's own native backtrace (return addresses, after its first frame) is part of ours
    const stacks = k.nodeStacks(fx.stderr);
    if (stacks.nativeTrace) {
      const pcs = crashed.frames.map((f) => f.pc);
      const want = stacks.nativeTrace.slice(1).map((f) => f.pc);
      const at = pcs.indexOf(want[0]);
      assert.ok(at >= 0, `node's frame ${want[0]} among ours: ${pcs}`);
      assert.deepStrictEqual(pcs.slice(at, at + want.length), want, 'native frames against node\'s own backtrace');
    } else {
      t.diagnostic(`node ${NODE_MAJOR} printed no native stack for ${c.mode}`);
    }
    // JS frames: the fixture's own Error.stack, taken from the same call expression in crashLeaf
    // just before it died (the innermost frame is the callee: the truth there, the crash here)
    const js = k.jsFrames(crashed);
    k.assertCrashedJs(js, fx.truth.truth, c.mode, 'JS frames against the process\'s own Error.stack');
    k.checkPositions(js, fx.truth.truth, fx.truth, 'positions against Error.stack');
    // and node's own printout, where this node prints one: every frame, with positions
    const printed = stacks[c.mode === 'throw' ? 'fromTrace' : 'abortTrace'];
    if (printed) {
      k.assertSameJs(js, printed, 'JS frames against the stack node printed when it died');
      k.checkPositions(js, printed, fx.truth, 'positions against node\'s printed stack', 0);
    } else {
      t.diagnostic(`node ${NODE_MAJOR} printed no JavaScript stack for ${c.mode}`);
    }
  });
}

test('[cores] kernel core, text output: the crashed thread first, marked with its signal', async (t) => {
  const fx = await k.crashFixture(t, 'abort');
  const r = await h.runV8walk(['--core', fx.core]);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^Process ${fx.truth.tid} \\([^)]+\\): Node ${NODE_MAJOR}\\.[^,]*, core file ${fx.core}\\n`));
  assert.match(r.stdout, new RegExp(`\\n\\nThread ${fx.truth.tid} "main" \\(crashed: SIGABRT, Aborted\\):\\n`));
  assert.match(r.stdout, /#\d+ +0x[0-9a-f]{16} crashLeaf \(\/.*postmortem\.js:\d+:\d+\)\n/);
  assert.match(r.stdout, /#\d+ +0x[0-9a-f]{16} uv_run \((node|libuv[\w.]*)\)\n/);
  assert.strictEqual(r.stderr, '');
});

test('[cores] gcore of a live process: every thread, and the same frames as a live --dump', async (t) => {
  const dir = k.tempDir(t, 'gcore');
  const fx = await h.startFixture('postmortem.js', { args: ['park', '2'] });
  t.after(() => fx.stop());
  const live = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json']);
  assert.strictEqual(live.code, 0, live.stderr);
  const file = k.gcore(fx.pid, dir);
  fx.stop();
  const r = await k.coreJson(['--core', file]);
  assert.strictEqual(r.code, 0, r.stderr);
  const d = r.dump, l = JSON.parse(live.stdout);
  assert.strictEqual(d.pid, fx.pid);
  assert.deepStrictEqual(d.warnings, []);
  assert.deepStrictEqual(d.threads.map((x) => x.tid).sort(), l.threads.map((x) => x.tid).sort(), 'the same threads');
  assert.ok(d.threads.every((x) => !x.crashed), 'a gcore has no crashed thread');
  // the parked main thread: the fixture's own stack, and frame for frame what the live walk saw
  const main = d.threads.find((x) => x.tid === fx.pid), liveMain = l.threads.find((x) => x.tid === fx.pid);
  assert.strictEqual(main.name, 'main');
  assert.strictEqual(main.truncated, false);
  k.assertSameJs(k.jsFrames(main), fx.ready.truth, 'JS frames against the process\'s own Error.stack', 1);
  k.checkPositions(k.jsFrames(main), fx.ready.truth, fx.ready, 'positions against Error.stack');
  const key = (f) => `${f.kind} ${f.name} ${f.file}:${f.line}:${f.column} ${f.pc} ${f.module}`;
  assert.deepStrictEqual(main.frames.map(key), liveMain.frames.map(key), 'core and live walks agree');
  // the spinning workers: named, walked to the end, in the fixture's code — its spin functions,
  // or the worker's own loop around them (a fresh make check on Node 26 once caught a worker there:
  // innermost frame the fixture's module function, 'Object.<anonymous>'; 0 of 120 live dumps did)
  const workers = d.threads.filter((x) => x.name === 'worker');
  assert.strictEqual(workers.length, 2, 'both workers recognized');
  for (const w of workers) {
    assert.strictEqual(w.truncated, false);
    const js = k.jsFrames(w);
    assert.ok(js.length > 0 && js[0].file === fx.ready.file && (/^spin/.test(js[0].name) || js[0].name === 'Object.<anonymous>'),
      `worker ${w.tid} in the fixture's code: ${js.map((f) => `${f.name} (${f.file})`)}`);
  }
});
