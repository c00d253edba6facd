// identity.test.js — with --function, a JavaScript function is one frame whatever receiver it was
// called on (its script and start position say which function it is); without it, frames keep
// V8's call-site names (`Widget.measure`, `Gadget.measure`).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const h = require('./harness');

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
