// overhead.js — `make bench`: how much each way of profiling slows a CPU-bound node process, in
// one run on one target. Phases alternate within each round — unprofiled, then v8walk in ptrace
// mode, v8walk in eBPF mode and `perf record -e cpu-clock -g`, at 99 Hz and at 999 Hz — and the
// order of the profiled phases rotates from round to round, so that drift on a shared machine
// spreads over all of them. Throughput (slices of work per wall-clock second) is measured in the
// steady part of each phase and divided by the mean of the same round's unprofiled phases; the
// spread of the unprofiled phases is the noise floor. Also shown: work per CPU-second of the
// target (what profiling costs inside the target, apart from lost scheduling).
//
//   V8WALK=build/v8walk node bench/overhead.js     (BENCH_ROUNDS=3, BENCH_PHASE_S=4, NODE=node)
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const V8WALK = process.env.V8WALK || path.join(__dirname, '..', 'build', 'v8walk');
const NODE = process.env.NODE || process.execPath;
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const PHASE_S = Number(process.env.BENCH_PHASE_S || 4);
const SETTLE_S = 0.6; // after a profiler starts, before measuring

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function startTarget() {
  const child = spawn(NODE, [path.join(__dirname, 'busy.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  let ready;
  const readyP = new Promise((r) => { ready = r; });
  rl.on('line', (l) => {
    let m;
    try { m = JSON.parse(l); } catch { return; }
    if (m.ready) ready(m);
    if (m.pong !== undefined && waiting.has(m.pong)) { waiting.get(m.pong)(m); waiting.delete(m.pong); }
  });
  let seq = 0;
  const status = () => new Promise((resolve) => {
    const k = ++seq;
    waiting.set(k, (m) => resolve({ ...m, t: process.hrtime.bigint() }));
    child.stdin.write(`ping ${k}\n`);
  });
  return readyP.then(() => ({ child, pid: child.pid, status }));
}

function profiler(config, pid, seconds) {
  const d = String(seconds);
  switch (config.tool) {
    case 'none': return null;
    case 'ptrace':
    case 'bpf':
      return spawn(V8WALK, ['--mode', config.tool, '--pid', String(pid), '--rate', String(config.hz),
        '--duration', d, '--raw', '-o', '/dev/null', '-q'], { stdio: ['ignore', 'ignore', 'inherit'] });
    case 'perf': {
      const out = path.join(os.tmpdir(), `v8walk-bench-${process.pid}.perf.data`);
      const p = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(config.hz), '-g', '-p', String(pid),
        '-o', out, '--', 'sleep', d], { stdio: ['ignore', 'ignore', 'inherit'] });
      p.on('close', () => fs.rmSync(out, { force: true }));
      return p;
    }
  }
  throw new Error(config.tool);
}

async function phase(target, config) {
  const p = profiler(config, target.pid, PHASE_S + 1);
  const done = p ? new Promise((r) => p.on('close', (code) => r(code))) : Promise.resolve(0);
  await sleep(SETTLE_S * 1000);
  const a = await target.status();
  await sleep((PHASE_S - SETTLE_S) * 1000);
  const b = await target.status();
  const code = await done;
  if (code !== 0) throw new Error(`${config.name}: the profiler exited with ${code}`);
  const secs = Number(b.t - a.t) / 1e9;
  const cpu = (b.cpuUs - a.cpuUs) / 1e6;
  return { rate: (b.iterations - a.iterations) / secs, perCpu: (b.iterations - a.iterations) / cpu, share: cpu / secs };
}

const mean = (v) => v.reduce((a, x) => a + x, 0) / v.length;
const pct = (x) => `${(x * 100).toFixed(1)}%`;

async function main() {
  const profiled = [];
  for (const hz of [99, 999])
    for (const tool of ['ptrace', 'bpf', 'perf']) profiled.push({ tool, hz, name: `${tool === 'perf' ? 'perf record -g' : `v8walk ${tool}`} ${hz} Hz` });
  const target = await startTarget();
  console.log(`v8walk overhead benchmark: node ${execFileSync(NODE, ['--version']).toString().trim()}, ` +
    `bench/busy.js (pid ${target.pid}), ${ROUNDS} rounds of ${profiled.length + 2} phases of ${PHASE_S} s ` +
    `(measured over the last ${PHASE_S - SETTLE_S} s), ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)} at start`);
  await sleep(1500); // warm up: optimized code
  const base = [], results = new Map(profiled.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = profiled.map((_, i) => profiled[(i + r * 2) % profiled.length]);
    const half = order.length / 2;
    const sched = [{ tool: 'none', name: 'none' }, ...order.slice(0, half), { tool: 'none', name: 'none' }, ...order.slice(half)];
    const roundBase = [], roundRes = [];
    for (const c of sched) {
      const m = await phase(target, c);
      if (c.tool === 'none') roundBase.push(m); else roundRes.push([c.name, m]);
      process.stderr.write(`  round ${r + 1}: ${c.name.padEnd(22)} ${m.rate.toFixed(1)} slices/s\n`);
    }
    const b = mean(roundBase.map((m) => m.rate)), bc = mean(roundBase.map((m) => m.perCpu));
    base.push(...roundBase);
    for (const [name, m] of roundRes) results.get(name).push({ ratio: m.rate / b, cpuRatio: m.perCpu / bc, share: m.share });
  }
  target.child.kill('SIGKILL');

  const rates = base.map((m) => m.rate);
  const bm = mean(rates);
  const sd = Math.sqrt(mean(rates.map((x) => (x - bm) ** 2)));
  console.log('');
  console.log(`${'profiler'.padEnd(24)}${'throughput ratio'.padStart(18)}${'range over rounds'.padStart(20)}${'per target CPU-s'.padStart(18)}${'target on CPU'.padStart(15)}`);
  console.log(`${'none (unprofiled)'.padEnd(24)}${'1.000'.padStart(18)}${''.padStart(20)}${'1.000'.padStart(18)}${pct(mean(base.map((m) => m.share))).padStart(15)}   (${bm.toFixed(1)} slices/s)`);
  for (const c of profiled) {
    const v = results.get(c.name);
    const ratios = v.map((x) => x.ratio);
    const range = `${Math.min(...ratios).toFixed(3)}..${Math.max(...ratios).toFixed(3)}`;
    console.log(`${c.name.padEnd(24)}${mean(ratios).toFixed(3).padStart(18)}${range.padStart(20)}` +
      `${mean(v.map((x) => x.cpuRatio)).toFixed(3).padStart(18)}${pct(mean(v.map((x) => x.share))).padStart(15)}`);
  }
  console.log('');
  console.log(`noise: the ${rates.length} unprofiled phases ran at ${Math.min(...rates).toFixed(1)}..${Math.max(...rates).toFixed(1)} slices/s ` +
    `(coefficient of variation ${pct(sd / bm)}); differences smaller than that are not meaningful. ` +
    `"target on CPU" below 100% means the target waited for a CPU (other load, or the profiler itself).`);
}

main().catch((e) => { console.error(`bench: ${e.message}`); process.exit(1); });
