// wasm.test.js — WebAssembly frames: named by their module, with the url V8 gives the module's
// script (the truth: the inspector's Debugger.scriptParsed in the target itself), under the
// JavaScript that called into them.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const WASM = (url) => `<wasm> (${url})_[w]`;

test('WebAssembly code is named by its module\'s url, under the JavaScript that called it', async (t) => {
  const fx = await h.startFixture('wasm_spin.js');
  t.after(() => fx.stop());
  const { url, file } = fx.ready;
  assert.match(url, /^wasm:\/\/wasm\/[0-9a-f]{8}$/, 'the module\'s url, from the inspector');
  const r = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--duration', '2']);
  assert.strictEqual(r.code, 0, r.stderr);
  let inCaller = 0, inWasm = 0;
  for (const s of h.parseFolded(r.stdout)) {
    const js = s.frames.map(h.parseJsFrame);
    const caller = js.findIndex((f) => f && f.name === 'spinCaller' && f.file === file);
    if (caller < 0) continue;
    inCaller += s.count;
    const leaf = s.frames[s.frames.length - 1];
    if (leaf !== WASM(url)) continue;
    inWasm += s.count;
    // between spinCaller and the module's code: only the exported function's own frame (V8 names
    // it by the function's index, in the module's script), where V8 has one
    const between = s.frames.slice(caller + 1, -1);
    assert.ok(between.every((f) => f.startsWith('0 (wasm://')), `frames between: ${between.join(' ; ')}`);
  }
  // enough to judge the names by (how many are due is the shares tests' to check: in the emulated
  // arm64 machine v8walk's first second goes to reading node's symbols)
  assert.ok(inCaller >= Math.min(50, h.samplesFloor(2)), `samples in spinCaller: ${inCaller}\n${r.stderr}`);
  // the loop is in the module's code; the rest is the call into it and the batch's clock
  assert.ok(inWasm >= 0.8 * inCaller, `${inWasm} of ${inCaller} samples in spinCaller are in the module's code`);
  assert.ok(await fx.ping(), fx.describe());
});

test('a .cpuprofile gives WebAssembly code its module\'s url, as V8\'s own profile does', async (t) => {
  const fx = await h.startFixture('wasm_spin.js');
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-wasm-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'p.cpuprofile');
  const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '-o', out]);
  assert.strictEqual(r.code, 0, r.stderr);
  const p = JSON.parse(fs.readFileSync(out, 'utf8'));
  const wasm = p.nodes.filter((n) => n.callFrame.functionName === '<wasm>');
  assert.ok(wasm.length > 0, 'a node of WebAssembly code');
  for (const n of wasm) assert.strictEqual(n.callFrame.url, fx.ready.url);
  assert.ok(wasm.reduce((a, n) => a + n.hitCount, 0) >= 0.5 * p.samples.length, 'most samples in it');
});

h.modeTest('ptrace', '--dump --json: a WebAssembly frame is of kind "wasm", its file the module\'s url', async (t) => {
  const fx = await h.startFixture('wasm_spin.js');
  t.after(() => fx.stop());
  // a dump is one instant: between batches the main thread is in its event loop (at most 5 tries,
  // each checked in full)
  let frames = [];
  for (let i = 0; i < 5 && !frames.some((f) => f.kind === 'wasm'); i++) {
    const r = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json']);
    assert.strictEqual(r.code, 0, r.stderr);
    frames = JSON.parse(r.stdout).threads[0].frames;
  }
  const w = frames.findIndex((f) => f.kind === 'wasm');
  assert.ok(w >= 0, frames.map((f) => `${f.kind} ${f.name}`).join('\n'));
  assert.strictEqual(frames[w].name, '<wasm>');
  assert.strictEqual(frames[w].file, fx.ready.url);
  const caller = frames.slice(w + 1).find((f) => f.kind === 'js' && !f.file.startsWith('wasm://'));
  assert.strictEqual(caller.name, 'spinCaller');
});
