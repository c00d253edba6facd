// errors.test.js — bad input gets one clear, specific line and a non-zero exit, never a crash, a
// hang or a target left stopped.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-errors-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function oneLine(stderr) {
  const lines = stderr.trim().split('\n');
  assert.strictEqual(lines.length, 1, `one line of error, got:\n${stderr}`);
  assert.match(lines[0], /^v8walk: /);
  return lines[0];
}

function startSleeper(file, args = []) {
  const child = spawn(file, args, { stdio: 'ignore' });
  return child;
}

function buildFake(define) {
  const out = path.join(tmp, `fake-node-${define.toLowerCase()}`);
  const r = spawnSync('cc', ['-O0', '-rdynamic', `-D${define}`, '-o', out, path.join(h.FIXTURES, 'fake_v8.c')],
    { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  return out;
}

async function fakeTarget(t, define) {
  const child = startSleeper(buildFake(define));
  t.after(() => child.kill('SIGKILL'));
  await h.sleep(100);
  return child.pid;
}

test('no such process', async () => {
  const r = await h.runV8walk(['--pid', '999999999']);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), /no process with pid 999999999/);
});

test('a process that is not node', async (t) => {
  const child = startSleeper('sleep', ['30']);
  t.after(() => child.kill('SIGKILL'));
  await h.sleep(100);
  const r = await h.runV8walk(['--pid', String(child.pid), '--duration', '1']);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), new RegExp(`process ${child.pid} \\(sleep\\) is not a Node.js process`));
  assert.strictEqual(h.tracerPid(child.pid), 0, 'never attached');
});

function childrenOf(pid) {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try { return /PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))[1] === String(pid); } catch { return false; }
  }).map(Number);
}

test('a wrapper process points at its node child', async (t) => {
  // e.g. `npm start` or a shell script: the node is a child of the pid the user gave
  const sh = spawn('sh', ['-c', `${h.NODE} ${path.join(h.FIXTURES, 'chain.js')}; true`],
    { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, ...h.NODE_ENV } });
  t.after(() => { try { process.kill(-sh.pid); } catch { sh.kill('SIGKILL'); } });
  let child = 0;
  for (let i = 0; i < 100 && !child; i++) {
    await h.sleep(50);
    child = childrenOf(sh.pid)[0] || 0;
  }
  assert.ok(child, 'the shell started node');
  // wait until the child has exec'd node (not just forked from sh)
  const real = fs.realpathSync(h.NODE);
  for (let i = 0; i < 200; i++) {
    try { if (fs.readlinkSync(`/proc/${child}/exe`) === real) break; } catch { /* not yet */ }
    await h.sleep(25);
  }
  await h.sleep(200);
  const r = await h.runV8walk(['--pid', String(sh.pid), '--duration', '1']);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), new RegExp(`is not a Node.js process: .* \\(its child ${child} \\([^)]+\\) runs node: try --pid ${child}\\)$`));
  process.kill(child, 'SIGKILL');
});

test('a V8 binary without postmortem metadata', async (t) => {
  const pid = await fakeTarget(t, 'NO_METADATA');
  const r = await h.runV8walk(['--pid', String(pid)]);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), /has V8 12\.4\.254\.21 but no v8dbg_\* postmortem metadata/);
});

test('a pointer-compressed V8 is refused with the versions named', async (t) => {
  const pid = await fakeTarget(t, 'POINTER_COMPRESSION');
  const r = await h.runV8walk(['--pid', String(pid)]);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), /pointer compression \(SmiShiftSize 0, TaggedSize 4\)/);
});

test('a V8 older than the supported range', async (t) => {
  const pid = await fakeTarget(t, 'TOO_OLD');
  const r = await h.runV8walk(['--pid', String(pid)]);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), /V8 7\.8\.254\.21\) is older than the oldest supported line/);
});

test('no permission: another user without CAP_SYS_PTRACE', { skip: process.getuid() !== 0 && 'needs root to run v8walk as another user' }, async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  // v8walk must be reachable by uid 65534: copy it somewhere world-readable
  const bin = path.join(tmp, 'v8walk');
  fs.copyFileSync(h.V8WALK, bin);
  fs.chmodSync(tmp, 0o755);
  fs.chmodSync(bin, 0o755);
  const r = spawnSync(bin, ['--pid', String(fx.pid), '--duration', '1'], { uid: 65534, gid: 65534, encoding: 'utf8' });
  assert.strictEqual(r.status, 5, 'the permission status');
  assert.match(oneLine(r.stderr), /belongs to uid 0 and v8walk runs as uid 65534 without CAP_SYS_PTRACE/);
  assert.ok(oneLine(r.stderr).includes(`\`sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep ${bin}\``), r.stderr);
  assert.ok(await fx.ping(), fx.describe());
});

// (in --mode auto, v8walk falls back to eBPF instead: bpf.test.js)
h.modeTest('ptrace', 'a target already traced by another tracer', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const first = h.startV8walk(['--mode', 'ptrace', '--pid', String(fx.pid), '--raw', '--duration', '5']);
  for (let i = 0; i < 100 && h.tracerPid(fx.pid) === 0; i++) await h.sleep(20);
  const r = await h.runV8walk(['--mode', 'ptrace', '--pid', String(fx.pid), '--duration', '1']);
  assert.strictEqual(r.code, 1);
  assert.match(oneLine(r.stderr), new RegExp(`already traced by process ${first.child.pid} \\(v8walk\\)`));
  first.child.kill('SIGINT');
  assert.strictEqual((await first.done).code, 0);
  assert.ok(await fx.ping(), fx.describe());
});

test('a stripped node still works: the metadata lives in .dynsym', async (t) => {
  const stripped = path.join(tmp, 'node-stripped');
  const s = spawnSync('strip', ['--strip-all', '-o', stripped, h.NODE], { encoding: 'utf8' });
  assert.strictEqual(s.status, 0, s.stderr);
  const fx = await h.startFixture('chain.js', { node: stripped });
  t.after(() => fx.stop());
  const r = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--duration', '1']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.ok(h.parseFolded(r.stdout).some((st) => h.hasChain(st.frames, [{ name: 'middle' }, { name: 'leaf' }])),
    'JS still named');
});

test('bad options', async () => {
  for (const [args, re] of [
    [['--pid', 'abc'], /--pid needs a process id, not 'abc'/],
    [['--pid', '1', '--rate', '0'], /--rate must be between 1 and 10000 Hz/],
    [['--pid', '1', '--duration', '-3'], /--duration needs a positive number of seconds/],
    [[], /which process\? give --pid PID/],
    [['--pid', '1', '--pid', '2', '--mode', 'ptrace'], /ptrace mode samples one process; use --mode bpf/],
    [['--pid', '1', '--mode', 'ptrace', '--kernel'], /--kernel needs eBPF sampling/],
    [['--pid', '1', '--mode', 'bpf', '--idle'], /--idle needs ptrace mode/],
    [['--pid', '1', '--mode', 'perf'], /--mode is ptrace, bpf or auto, not 'perf'/],
    [['--pid', '1', '--dump', '--mode', 'bpf'], /--dump stops each thread once with ptrace/],
    [['--pid', '1', '--', 'node'], /give one of --pid, --all-node and -- PROGRAM/],
    [['--pid', '1', 'node'], /unexpected argument 'node' \(to start a program: v8walk \[options\] -- PROGRAM/],
    [['--'], /`--` must be followed by the program/],
    [['--pid', '1', '--bogus'], /unknown option '--bogus'/],
    [['--pid', '1', '--function', '--nolineno'], /contradict/],
    [['--core', '/dev/null', '--raw'], /--text and --raw \(--format\) shape a sampled profile/],
    [['--pid', '1', '--dump', '--text'], /--text and --raw \(--format\) shape a sampled profile/],
  ]) {
    const r = await h.runV8walk(args);
    assert.strictEqual(r.code, 2, `${args}: ${r.stderr}`);
    assert.match(oneLine(r.stderr), re);
  }
});
