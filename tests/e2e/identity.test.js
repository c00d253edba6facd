// identity.test.js — with --function, a JavaScript function is one frame whatever receiver it was
// called on (its script and start position say which function it is); without it, frames keep
// V8's call-site names (`Widget.measure`, `Gadget.measure`) in folded and text output, while the
// formats that have functions (cpuprofile, speedscope, pprof) show the function once.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const c = require('./consumers');

function leafNames(stacks) {
  const names = new Map();
  for (const s of stacks) {
    const js = s.frames.map((f) => h.parseJsFrame(f)).filter(Boolean);
    const leaf = js[js.length - 1];
    if (leaf && /measure$/.test(leaf.name)) names.set(`${leaf.name}:${leaf.line}`, (names.get(`${leaf.name}:${leaf.line}`) || 0) + s.count);
  }
  return names;
}

test('--function: one function called on two receiver types is one frame', async (t) => {
  const fx = await h.startFixture('receivers.js');
  t.after(() => fx.stop());
  const callSites = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--duration', '2']);
  assert.strictEqual(callSites.code, 0, callSites.stderr);
  const bySite = leafNames(h.parseFolded(callSites.stdout));
  const sites = new Set([...bySite.keys()].map((k) => k.split(':')[0]));
  assert.ok(sites.has('Widget.measure') && sites.has('Gadget.measure'), `call-site names: ${[...sites]}`);
  const byFunction = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--function', '--duration', '2']);
  assert.strictEqual(byFunction.code, 0, byFunction.stderr);
  const fns = leafNames(h.parseFolded(byFunction.stdout));
  assert.deepStrictEqual([...fns.keys()], [`measure:${fx.ready.line}`], 'one frame for the function');
});

// Without --function, folded keeps the call-site names, but the formats that have functions
// (cpuprofile, speedscope, pprof) key a function by its script and start position and show its
// own name, as V8's --cpu-prof does: `measure` once, never `Widget.measure` beside `Gadget.measure`.
test('cpuprofile, speedscope, pprof: one function called on two receiver types is one function', async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-identity-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const fx = await h.startFixture('receivers.js');
  t.after(() => fx.stop());
  const out = { folded: 'p.folded', cpuprofile: 'p.cpuprofile', speedscope: 'p.speedscope.json', pprof: 'p.pb.gz' };
  const args = ['--pid', String(fx.pid), '--duration', '2', '-q'];
  for (const [k, f] of Object.entries(out)) args.push('-o', (out[k] = path.join(tmp, f)));
  const r = await h.runV8walk(args);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(fs.readFileSync(out.folded, 'utf8'));
  const bySite = leafNames(stacks);
  const sites = new Set([...bySite.keys()].map((k) => k.split(':')[0]));
  assert.ok(sites.has('Widget.measure') && sites.has('Gadget.measure'), `call-site names in folded: ${[...sites]}`);
  // samples whose innermost frame is measure, under either name
  const leafMeasure = stacks.filter((s) => /measure$/.test(h.parseJsFrame(s.frames[s.frames.length - 1])?.name || ''))
    .reduce((a, s) => a + s.count, 0);
  // cpuprofile: the main thread; every `measure` node is the function at its definition, and no
  // two of them share a parent (one node per call path of functions)
  const prof = JSON.parse(fs.readFileSync(out.cpuprofile, 'utf8'));
  const nodes = prof.nodes.filter((n) => /measure/.test(n.callFrame.functionName));
  assert.ok(nodes.length > 0, 'measure in the cpuprofile');
  // (V8 places a function at its parameter list: the `(` of `function measure(`, 0-based)
  const defText = fs.readFileSync(fx.ready.file, 'utf8').split('\n')[fx.ready.line - 1];
  const paren = defText.indexOf('function measure(') + 'function measure'.length;
  for (const n of nodes) {
    assert.strictEqual(n.callFrame.functionName, 'measure', 'the function\'s own name');
    assert.strictEqual(n.callFrame.url, fx.ready.file);
    assert.strictEqual(n.callFrame.lineNumber, fx.ready.line - 1, '0-based definition line');
    assert.strictEqual(n.callFrame.columnNumber, paren, 'the column of its parameter list, as V8 writes it');
  }
  const parents = prof.nodes.filter((p) => (p.children || []).some((id) => nodes.some((n) => n.id === id)));
  for (const p of parents)
    assert.strictEqual(p.children.filter((id) => nodes.some((n) => n.id === id)).length, 1, 'one measure node per call path');
  assert.strictEqual(nodes.reduce((a, n) => a + n.hitCount, 0), leafMeasure, 'its hits are the samples folded ends in either call-site name');
  // speedscope: one frame
  const doc = JSON.parse(fs.readFileSync(out.speedscope, 'utf8'));
  const frames = doc.shared.frames.filter((f) => /measure/.test(f.name));
  assert.deepStrictEqual(frames.map((f) => [f.name, f.file, f.line]), [['measure', fx.ready.file, fx.ready.line]], 'one speedscope frame');
  // pprof, as go tool pprof lists it: one function, with the samples of both call-site names
  const top = c.pprofTop(out.pprof);
  const names = Object.keys(top.byName).filter((n) => /measure/.test(n));
  assert.deepStrictEqual(names, ['measure'], 'one pprof function');
  assert.strictEqual(top.byName.measure.flat, leafMeasure, 'its flat samples');
});

// Two anonymous functions on one line (a minifier's output): the same name (V8 infers one for both),
// script and line, told apart by the column of each. Each is its own function in the cpuprofile, at its own column (the
// `(` of its parameter list, as V8 writes it), with its own hits, in the proportion of the time
// each ran by the process's own clock (once, every `(anonymous)` of a line was one frame, placed at
// the column of whichever was sampled first). The second is called three times as often; that
// alone did not make it the one with more hits (Debian's Node 18, eBPF: 92 vs 104 hits, the first
// still in a slower tier).
test('cpuprofile: two anonymous functions on one line are two functions, each at its column', async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-identity-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const fx = await h.startFixture('oneline.js');
  t.after(() => fx.stop());
  const out = path.join(tmp, 'p.cpuprofile');
  const spent = async (k) => { fx.child.stdin.write(`ping ${k}\n`); return (await fx.next((m) => m.pong === k)).spentNs; };
  const before = await spent(1);
  const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '2', '-q', '-o', out]);
  const after = await spent(2);
  assert.strictEqual(r.code, 0, r.stderr);
  const text = fs.readFileSync(fx.ready.file, 'utf8').split('\n')[fx.ready.line - 1];
  const columns = [];
  for (let at = text.indexOf('function('); at >= 0; at = text.indexOf('function(', at + 1)) columns.push(at + 'function'.length);
  assert.strictEqual(columns.length, 2, 'the fixture holds two functions on its line');
  const prof = JSON.parse(fs.readFileSync(out, 'utf8'));
  const hits = new Map(), names = new Set();
  for (const n of prof.nodes) {
    const cf = n.callFrame;
    if (cf.url !== fx.ready.file || cf.lineNumber !== fx.ready.line - 1) continue;
    names.add(cf.functionName);
    assert.ok(columns.includes(cf.columnNumber), `column ${cf.columnNumber} is one of the functions' (${columns})`);
    hits.set(cf.columnNumber, (hits.get(cf.columnNumber) || 0) + n.hitCount);
  }
  // one name for both (V8 infers `F` for both, from `const F = [...]`): only the column tells them apart
  assert.strictEqual(names.size, 1, `the two functions have one name: ${[...names]}`);
  const [first, second] = columns.map((col) => hits.get(col) || 0);
  // (the window measured by the process spans the sampling with some margin on both sides)
  const [ranFirst, ranSecond] = [0, 1].map((i) => after[i] - before[i]);
  const share = (a, b) => a / (a + b);
  t.diagnostic(`${h.MODE}: hits at column ${columns[0]}: ${first}, at ${columns[1]}: ${second}; ` +
    `the process's own time: ${(ranFirst / 1e6).toFixed(0)} and ${(ranSecond / 1e6).toFixed(0)} ms`);
  assert.ok(first > 0 && second > 0, `both functions sampled, each at its own column: ${first} and ${second}`);
  assert.ok(Math.abs(share(first, second) - share(ranFirst, ranSecond)) <= 0.12,
    `the first function's share of the hits, ${share(first, second).toFixed(2)} (${first} of ${first + second}), ` +
    `is its share of the time they ran, ${share(ranFirst, ranSecond).toFixed(2)}`);
});
