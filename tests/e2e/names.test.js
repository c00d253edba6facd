// names.test.js — call-site names as V8's Error.stack spells them, for frames every CommonJS
// program has: node's module loader (an anonymous function found under the key '.js' of a
// null-prototype object, a dictionary-mode object: `Object..js` on Node 22+).
'use strict';
const assert = require('node:assert');
const h = require('./harness');

// "    at NAME (FILE:LINE:COL)" → {name, file, line, column}
function stackFrames(stack) {
  return stack.split('\n').slice(1).map((l) => /^\s+at (?:(.*) \()?(.*):(\d+):(\d+)\)?$/.exec(l))
    .filter(Boolean).map((m) => ({ name: m[1] ?? '', file: m[2], line: +m[3], column: +m[4] }));
}

h.modeTest('ptrace', 'loader frames are named as Error.stack names them (dictionary-mode receivers)', async (t) => {
  const fx = await h.startFixture('toplevel.js');
  t.after(() => fx.stop());
  const want = stackFrames(fx.ready.stack);
  assert.ok(want.length >= 4, fx.ready.stack);
  const r = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json']);
  assert.strictEqual(r.code, 0, r.stderr);
  const main = JSON.parse(r.stdout).threads[0];
  const js = main.frames.filter((f) => f.kind === 'js');
  // the innermost frame is the top-level code (at the loop, not at `new Error`): compare the rest
  assert.strictEqual(js[0].file, fx.ready.file);
  const got = js.slice(1, want.length).map((f) => `${f.name} (${f.file}:${f.line}:${f.column})`);
  // where Error.stack prints only a location, v8walk says (anonymous) (docs/output-formats.md)
  const exp = want.slice(1).map((f) => `${f.name || '(anonymous)'} (${f.file}:${f.line}:${f.column})`);
  assert.deepStrictEqual(got, exp);
});
