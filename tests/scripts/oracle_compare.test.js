// oracle_compare.test.js — the same-run oracle charges both profiles alike: WebAssembly code is
// one bucket per module (V8's profile names each function of it, v8walk's the module), by the
// module's url; a function of the same name elsewhere stays apart.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');

const { profileShares } = require(path.join(__dirname, '..', '..', 'bench', 'oracle_compare.js'));

// a .cpuprofile of one stack per leaf (root → caller → …leaf), one sample each
function profile(stacks) {
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [] }];
  const samples = [];
  for (const frames of stacks) {
    let parent = nodes[0];
    for (const [functionName, url, lineNumber = 0, columnNumber = 0] of frames) {
      const node = { id: nodes.length + 1, callFrame: { functionName, scriptId: '1', url, lineNumber, columnNumber }, children: [] };
      parent.children.push(node.id);
      nodes.push(node);
      parent = node;
    }
    samples.push(parent.id);
  }
  return { nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) };
}

test('WebAssembly: V8\'s functions and v8walk\'s module frames meet in one bucket per module', () => {
  const caller = ['spinCaller', 'file:///app/w.js', 16, 2];
  const v8 = profileShares(profile([
    [caller, ['wasm-function[0]', 'wasm://wasm/445a96ba', 0, 34]],
    [caller, ['wasm-function[1]', 'wasm://wasm/445a96ba', 0, 90]],
    [caller, ['hash', 'wasm://wasm/0badc0de', 0, 12]],
    [caller, ['hash', 'file:///app/w.js', 40, 2]],
  ]));
  const walk = profileShares(profile([
    [caller, ['0', 'wasm://wasm/445a96ba', 0, 0], ['<wasm>', 'wasm://wasm/445a96ba', -1, -1]],
    [caller, ['<wasm>', 'wasm://wasm/445a96ba', -1, -1]],
    [caller, ['<wasm>', 'wasm://wasm/0badc0de', -1, -1]],
    [caller, ['hash', 'file:///app/w.js', 40, 2]],
  ]));
  assert.deepStrictEqual([...v8.counts].sort(), [...walk.counts].sort());
  assert.strictEqual(v8.counts.get('(wasm) wasm://wasm/445a96ba'), 2);
  assert.strictEqual(v8.counts.get('(wasm) wasm://wasm/0badc0de'), 1);
  assert.strictEqual(v8.counts.get('/app/w.js:41:3'), 1, 'a JavaScript function of the same name stays itself');
});

test('a module streamed from a url of its own: known by that url on both sides', () => {
  const v8 = profileShares(profile([[['wasm-function[3]', 'https://cdn.example/m.wasm', 0, 7]]]));
  const walk = profileShares(profile([[['<wasm>', 'https://cdn.example/m.wasm', -1, -1]]]));
  assert.deepStrictEqual([...v8.counts.keys()], ['(wasm) https://cdn.example/m.wasm']);
  assert.deepStrictEqual([...walk.counts.keys()], ['(wasm) https://cdn.example/m.wasm']);
});
