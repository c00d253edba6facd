// safety.test.js — the target comes first: whatever happens around a sample (threads coming and
// going, the target's own signals, SIGSTOP, the target exiting, v8walk interrupted or killed),
// the target keeps running normally and is never left stopped or traced.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const h = require('./harness');

async function assertHealthy(fx) {
  assert.ok(await fx.ping(), `target answers: ${fx.describe()}`);
  for (let i = 0; i < 50 && h.tracerPid(fx.pid) !== 0; i++) await h.sleep(20);
  assert.strictEqual(h.tracerPid(fx.pid), 0, 'no tracer left attached');
  const states = h.threadStates(fx.pid);
  assert.ok(states.every((s) => s !== 't' && s !== 'T'), `thread states ${states}`);
}

test('threads that start and exit during the run are handled', async (t) => {
  const fx = await h.startFixture('churn.js');
  t.after(() => fx.stop());
  // (a worker takes seconds to start in an emulated machine: the run is as long as its time scale)
  const before = await fx.ping();
  const r = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--rate', '499', '--duration', String(3 * h.WAIT_SCALE)]);
  const after = await fx.ping();
  assert.strictEqual(r.code, 0, r.stderr);
  // the workers that started and ended meanwhile, by the target's own count: each ran (it
  // computes before it exits), so each is a thread v8walk saw, beside the main thread
  const done = after.workersDone - before.workersDone;
  assert.ok(done >= 3, `the target finished ${done} workers during the run`);
  const threads = Number(/(\d+) threads seen/.exec(r.stderr)[1]);
  assert.ok(threads > Math.min(done, 10), `saw ${threads} threads where ${done} workers came and went`);
  await assertHealthy(fx);
});

test("the target's own signals arrive while it is sampled", async (t) => {
  const fx = await h.startFixture('churn.js');
  t.after(() => fx.stop());
  const run = h.startV8walk(['--pid', String(fx.pid), '--raw', '--rate', '999', '--duration', '4']);
  await h.sleep(500);
  // one signal at a time, each acknowledged by the target before the next (standard signals
  // that arrive while one is pending merge, with or without a tracer)
  const N = 30;
  for (let i = 1; i <= N; i++) {
    process.kill(fx.pid, 'SIGUSR2');
    let seen = 0;
    for (let k = 0; k < 100 && seen < i; k++) {
      fx.child.stdin.write(`ping ${1000 * i + k}\n`);
      seen = (await fx.next((m) => m.pong === 1000 * i + k)).signals;
    }
    assert.strictEqual(seen, i, `signal ${i} was delivered to the target`);
  }
  const r = await run.done;
  assert.strictEqual(r.code, 0, r.stderr);
  await assertHealthy(fx);
});

test('SIGSTOP and SIGCONT of the target during sampling', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const run = h.startV8walk(['--pid', String(fx.pid), '--raw', '--duration', '3']);
  await h.sleep(700);
  process.kill(fx.pid, 'SIGSTOP');
  await h.sleep(800);
  // stopped as the user asked: 'T', or 't' while a tracer is attached (a group-stop under ptrace)
  assert.match(h.procState(fx.pid), /^[tT]$/);
  process.kill(fx.pid, 'SIGCONT');
  const r = await run.done;
  assert.strictEqual(r.code, 0, r.stderr);
  assert.ok(h.parseFolded(r.stdout).length > 0);
  await assertHealthy(fx);
});

for (const sig of ['SIGINT', 'SIGTERM']) {
  test(`${sig} ends sampling, writes the profile and detaches`, async (t) => {
    const fx = await h.startFixture('chain.js');
    t.after(() => fx.stop());
    const run = h.startV8walk(['--pid', String(fx.pid), '--raw']);
    // 1.5 s of sampling from the attach (loading the eBPF program can take as long on a busy
    // machine); only running threads are sampled, so the samples written follow the CPU time the
    // busy target got meanwhile (clock ticks of 10 ms), at 99 Hz
    assert.ok(await h.waitFor(() => h.attached(fx.pid, run.child.pid), 10000), `v8walk (${h.MODE}) attached`);
    const ticks = h.cpuTicks(fx.pid);
    await h.sleep(1500);
    run.child.kill(sig);
    const cpuSeconds = (h.cpuTicks(fx.pid) - ticks) / 100;
    const r = await run.done;
    assert.strictEqual(r.code, 0, r.stderr);
    const samples = h.parseFolded(r.stdout).reduce((a, s) => a + s.count, 0);
    assert.ok(samples >= h.samplesFloor(cpuSeconds),
      `${samples} samples written for ${cpuSeconds} s of target CPU at 99 Hz: ${r.stderr}`);
    assert.match(r.stderr, /samples in/);
    await assertHealthy(fx);
  });
}

test('v8walk killed with SIGKILL at any moment leaves the target running', async (t) => {
  const fx = await h.startFixture('churn.js');
  t.after(() => fx.stop());
  for (let round = 0; round < 5; round++) {
    const run = h.startV8walk(['--pid', String(fx.pid), '--raw', '--rate', '2000']);
    // killed only once it has attached (the target traced by it, or its eBPF program running),
    // at a different moment of sampling each round
    const attached = await h.waitFor(() => h.attached(fx.pid, run.child.pid), 10000);
    assert.ok(attached, `round ${round}: v8walk (pid ${run.child.pid}, ${h.MODE}) attached to ${fx.pid} within 10 s`);
    await h.sleep(round * 137);
    assert.ok(h.attached(fx.pid, run.child.pid), `round ${round}: v8walk still attached when killed`);
    run.child.kill('SIGKILL');
    const r = await run.done;
    assert.strictEqual(r.signal, 'SIGKILL', `round ${round}: v8walk died of the SIGKILL, not before it: ${r.stderr}`);
    await assertHealthy(fx);
  }
});

test('the target exiting during sampling ends the run cleanly', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const run = h.startV8walk(['--pid', String(fx.pid), '--raw', '--duration', '30']);
  await run.sampling;
  await h.sleep(1000);
  fx.child.stdin.write('exit\n');
  const r = await run.done;
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, /the target exited \(status 0\)/);
  assert.ok(h.parseFolded(r.stdout).length > 0, 'the samples taken are written');
});
