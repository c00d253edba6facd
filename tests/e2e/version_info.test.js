// version_info.test.js — `--version-info` reports what v8walk detected, checked against what the
// process itself says (process.version, process.versions.v8) and the module it maps.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const h = require('./harness');

test('--version-info names the node and V8 versions, the metadata source and the fallbacks', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const r = await h.runV8walk(['--pid', String(fx.pid), '--version-info']);
  assert.strictEqual(r.code, 0, r.stderr);
  const v8 = fx.ready.versions.v8.replace(/-.*$/, '');
  const node = fx.ready.versions.node;
  assert.match(r.stdout, new RegExp(`^target: +Node ${node.replace(/\./g, '\\.')} \\(V8 ${v8.replace(/\./g, '\\.')}\\)$`, 'm'));
  // the module that carries V8: node itself, or libnode.so for a shared build
  const maps = fs.readFileSync(`/proc/${fx.pid}/maps`, 'utf8');
  const module = /^V8 module: +(\S+)/m.exec(r.stdout)[1];
  assert.ok(maps.includes(module), `${module} is mapped by the target`);
  if (/libnode\.so/.test(module)) assert.match(r.stdout, /\(shared library\)/);
  assert.match(r.stdout, /^metadata: +\d{3} v8dbg_\* symbols/m);
  assert.match(r.stdout, /^build-id: +[0-9a-f]{40}$/m);
  assert.match(r.stdout, /^layout: +\d+ items from metadata, \d+ from fallbacks, \d+ unknown$/m);
  // every fallback line names the rule it applied
  for (const line of r.stdout.split('\n').filter((l) => l.startsWith('  fallback'))) {
    assert.match(line, /^ {2}fallback +[A-Z0-9_]+ += -?\d+ +\S/);
  }
  assert.strictEqual(h.tracerPid(fx.pid), 0, '--version-info never attaches');
});

test('--force-v8-version selects another fallback row and says so', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const r = await h.runV8walk(['--pid', String(fx.pid), '--version-info', '--force-v8-version', '12.4']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /^fallbacks for: +V8 12\.4\.0 \(forced with --force-v8-version\)$/m);
  const old = await h.runV8walk(['--pid', String(fx.pid), '--version-info', '--force-v8-version', '8.0']);
  assert.strictEqual(old.code, 1);
  assert.match(old.stderr, /is older than the oldest supported line/);
});
