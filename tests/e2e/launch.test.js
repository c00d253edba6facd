// launch.test.js — launch mode (`v8walk [options] -- node app.js args…`), in the pass's sampler:
// the program is profiled from its start until it exits, its exit code (or 128 + the signal that
// killed it) is v8walk's, signals sent to v8walk reach it, and it is never left stopped or traced.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-launch-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let nth = 0;
const outFile = () => path.join(tmp, `profile-${++nth}.folded`);

// (profiles are taken with --function: JS frames at their definition lines)
function spinSamples(out, ready) {
  const stacks = h.parseFolded(fs.readFileSync(out, 'utf8'));
  // spin runs as an immediate's callback: V8 names it "Immediate.spin [as _onImmediate]"
  const isSpin = (f) => {
    const j = h.parseJsFrame(f);
    return j && /^(\w+\.)?spin( \[as [^\]]+\])?$/.test(j.name) && j.file === ready.file && j.line === ready.spinLine;
  };
  const hot = stacks.filter((s) => s.frames.some(isSpin));
  return { stacks, hot: hot.reduce((a, s) => a + s.count, 0) };
}

test('launch: the exit code passes through and the program is profiled with its JS named', async (t) => {
  const out = outFile();
  const fx = await h.launchFixture('launched.js', { v8walkArgs: ['--raw', '--function', '-o', out] });
  t.after(() => fx.stop());
  const ticks = h.cpuTicks(fx.pid);
  await h.sleep(2500);
  const cpuSeconds = (h.cpuTicks(fx.pid) - ticks) / 100;
  fx.child.stdin.write('exit 3\n');
  const r = await fx.done;
  assert.strictEqual(r.code, 3, r.stderr);
  assert.match(r.stderr, /the target exited \(status 3\)/);
  const { stacks, hot } = spinSamples(out, fx.ready);
  // an on-CPU profile: as many samples as the CPU the busy program got (a loaded machine, or a
  // sanitizer build of v8walk, gives fewer than 2.5 s at 99 Hz)
  const want = Math.min(25, h.samplesFloor(cpuSeconds));
  assert.ok(hot >= want, `samples in spin: ${hot} for ${cpuSeconds} s of CPU (want ${want})\n${r.stderr}\n${stacks.slice(0, 3).map((s) => s.frames.join(';')).join('\n')}`);
  assert.ok(stacks.every((s) => s.frames[0].endsWith(`(${fx.pid})`)),
    'every sample is the program\'s');
  if (h.MODE === 'ptrace')
    assert.strictEqual(fx.ready.tracerAtStart, fx.v8walk.pid, 'traced before its first line of JavaScript ran');
});

test('launch: death by a signal is exit code 128 + the signal', async (t) => {
  const fx = await h.launchFixture('launched.js', { v8walkArgs: ['--raw', '-o', outFile()] });
  t.after(() => fx.stop());
  await h.sleep(500);
  fx.child.stdin.write('kill SIGTERM\n');
  const r = await fx.done;
  assert.strictEqual(r.code, 128 + os.constants.signals.SIGTERM, r.stderr);
  assert.match(r.stderr, /killed by signal 15/);
});

test('launch: SIGINT sent to v8walk goes to the program, and the profile is still written', async (t) => {
  const out = outFile();
  const fx = await h.launchFixture('launched.js', { v8walkArgs: ['--raw', '--function', '-o', out] });
  t.after(() => fx.stop());
  // (eBPF names a sample's JS frames from the process's memory after it was taken, so those not
  // yet named when the program exits are lost; in an emulated machine, V8WALK_E2E_TIME_SCALE > 1,
  // v8walk is seconds behind for a while after the start — 1.8 s on Node 22 once — and is given
  // that much longer to catch up)
  await h.sleep(1000 * h.WAIT_SCALE);
  fx.v8walk.kill('SIGINT');
  const r = await fx.done;
  assert.strictEqual(r.code, 42, `the program's SIGINT handler chose the exit code\n${r.stderr}`);
  const got = spinSamples(out, fx.ready);
  assert.ok(got.hot > 0, `profile written, with the program's hot function (spin at line ${fx.ready.spinLine}):\n${
    got.stacks.slice(0, 8).map((s) => `${s.count} ${s.frames.slice(-4).join(';')}`).join('\n')}\nv8walk's stderr:\n${r.stderr}`);
});

test('launch: --duration ends sampling; v8walk then waits for the program and passes its code on', async (t) => {
  const out = outFile();
  const fx = await h.launchFixture('launched.js', { v8walkArgs: ['--raw', '-o', out, '--duration', '1'] });
  t.after(() => fx.stop());
  await h.sleep(2500);
  assert.ok(fs.statSync(out).size > 0, 'the profile was written when sampling ended');
  assert.strictEqual(h.tracerPid(fx.pid), 0, 'no longer traced');
  assert.ok(await fx.ping(), 'the program runs on');
  fx.child.stdin.write('exit 7\n');
  const r = await fx.done;
  assert.strictEqual(r.code, 7, r.stderr);
});

test('launch: v8walk killed: the program runs on, neither stopped nor traced', async (t) => {
  const fx = await h.launchFixture('launched.js', { v8walkArgs: ['--raw', '-o', outFile()] });
  t.after(() => fx.stop());
  assert.ok(await h.waitFor(() => h.attached(fx.pid, fx.v8walk.pid), 10000), `v8walk (${h.MODE}) attached to ${fx.pid}`);
  await h.sleep(500);
  fx.v8walk.kill('SIGKILL');
  await fx.exited;
  for (let i = 0; i < 50 && h.tracerPid(fx.pid) !== 0; i++) await h.sleep(20);
  assert.strictEqual(h.tracerPid(fx.pid), 0);
  assert.ok(h.threadStates(fx.pid).every((s) => s !== 't' && s !== 'T'), 'not stopped');
  // its stdin closed with v8walk, so it cannot answer pings: it must keep using CPU instead
  const before = h.cpuTicks(fx.pid);
  await h.sleep(500);
  assert.ok(h.cpuTicks(fx.pid) > before, 'still running');
});

test('launch: a program that cannot be run: one line, exit code 127 as in a shell', async () => {
  const r = await h.runV8walk(['--raw', '--', path.join(tmp, 'no-such-program')]);
  assert.strictEqual(r.code, 127);
  assert.match(r.stderr.trim(), /^v8walk: cannot run .*no-such-program: No such file or directory$/);
});

test('launch: a program that never runs node runs to its end, unsampled, and says so', async () => {
  const r = await h.runV8walk(['--raw', '--', 'sh', '-c', 'exit 5']);
  assert.strictEqual(r.code, 5, r.stderr);
  assert.match(r.stderr, /sh never ran node.*, so nothing was sampled/);
  assert.strictEqual(r.stdout, '');
});

// What a program started the way v8walk is started here begins with (signal mask, ignored set),
// as grep shows it (node and sh reset their own signal state at start; grep does not)
function statusSignals(text) {
  return { sigBlk: /^SigBlk:\s+(\S+)/m.exec(text)?.[1], sigIgn: /^SigIgn:\s+(\S+)/m.exec(text)?.[1] };
}
const GREP_SIGNALS = ['/bin/grep', '-E', '^Sig(Blk|Ign):', '/proc/self/status'];
function spawnedSignalState() {
  return statusSignals(require('node:child_process').execFileSync(GREP_SIGNALS[0], GREP_SIGNALS.slice(1)).toString());
}

test('launch under sudo: the program runs as the user who ran sudo and their groups; --keep-root keeps root', async (t) => {
  if (process.getuid() !== 0) { t.skip('needs root (v8walk under sudo is root)'); return; }
  const sudo = { SUDO_UID: '65534', SUDO_GID: '65534', SUDO_USER: 'nobody', SUDO_COMMAND: '/bin/true' };
  // the program runs as nobody: a node under root's cache is not runnable by it (this is about
  // v8walk's launch, not about a Node line), so then the harness's own node runs the fixture
  const node = h.runnableByAnyone(h.NODE) ? h.NODE : process.execPath;
  assert.ok(h.runnableByAnyone(node), `${node} runnable by nobody`);
  const out = outFile();
  const fx = await h.launchFixture('identity.js', { v8walkArgs: ['--raw', '-o', out], env: sudo, node });
  t.after(() => fx.stop());
  assert.strictEqual(fx.ready.uid, 65534, 'not root');
  assert.strictEqual(fx.ready.gid, 65534);
  assert.ok(!fx.ready.groups.includes(0), `no root group: ${fx.ready.groups}`);
  fx.child.stdin.write('exit\n');
  const r = await fx.done;
  assert.strictEqual(r.code, 0, r.stderr);

  const kept = await h.launchFixture('identity.js', { v8walkArgs: ['--raw', '--keep-root', '-o', outFile()], env: sudo, node });
  t.after(() => kept.stop());
  assert.strictEqual(kept.ready.uid, 0, '--keep-root keeps root');
  kept.child.stdin.write('exit\n');
  assert.strictEqual((await kept.done).code, 0);
});

test('launch: the program starts with the signal mask v8walk was given, not the one it samples with', async () => {
  const r = await h.runV8walk(['--raw', '-o', outFile(), '--', ...GREP_SIGNALS]);
  assert.deepStrictEqual(statusSignals(r.stdout), spawnedSignalState(), `${r.stdout}\n${r.stderr}`);
});

test('launch: the program starts with the descriptor limit v8walk was given, not the one it raised', async (t) => {
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((f) => fs.existsSync(f));
  if (!prlimit) { t.skip('prlimit (util-linux) is not installed: cannot set v8walk\'s descriptor limit'); return; }
  const wrap = [prlimit, '--nofile=1000:4000'];
  const limits = ['/bin/grep', '^Max open files', '/proc/self/limits'];
  const r = await h.runV8walk(['--raw', '-o', outFile(), '--', ...limits], { wrap });
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Max open files\s+1000\s+4000\s+files\s*$/m, `${r.stdout}\n${r.stderr}`);
  // (that v8walk raised its own is shown by sampler.test.js: 400 threads under a soft limit of 1,024)
});
