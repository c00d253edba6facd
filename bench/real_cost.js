// real_cost.js — `make bench`: what a sample costs real npm programs (bench/WORKLOADS.md), measured
// side by side in one run on each workload's one target process. Phases, each PHASE_S seconds:
// unprofiled (twice a round), the floor probe (build/bench/floor_probe: interrupt + registers + one
// copy of the same 64 KiB of stack + resume, nothing else) at 99 and 999 Hz, with the copy made by
// process_vm_readv ("floor") and by the kernel at the stop as v8walk makes it by default ("floor k",
// ptrace/switch_copy.h), v8walk in ptrace and eBPF mode at 99 and 999 Hz, and v8walk copying the
// stacks itself (--stack-copy read, "ptrace read") at the first rate; the order of the profiled phases rotates from round to round so
// that machine noise hits all of them alike. Measured per phase, over the phase's steady part (from
// SETTLE_S after the profiler started to its end, on CLOCK_MONOTONIC, which the target's progress
// timeline also uses):
//   - the target's throughput (work per second from its progress timeline; the server: requests/s
//     and p50/p99 latency under autocannon), as a ratio to the same round's unprofiled phases;
//   - the target's own view of its pauses: gaps longer than 20 µs seen by the hot-loop probe of the
//     workloads that have one (count per second, median, p99, max), beside the unprofiled phases';
//   - the target's CPU share (from /proc/PID/stat);
//   - v8walk's summary (stderr): pause median and p99, reads per sample, own CPU, missed samples,
//     the share of stops whose stack the kernel copied; the floor probes' pause median, p99, max.
// Then, with BENCH_SATURATE (default 1), the same under CPU saturation: as many busy processes
// (`sh` spinning, the normal policy) as the machine has CPUs run beside the target during three
// more phases a round — unprofiled, the floor probe and v8walk ptrace at the first rate, marked
// "+busy" — whose ratios are to the unprofiled "+busy" phase of the round.
// With BENCH_STOP_LIMIT_US (default 0: none), one more phase a round: v8walk ptrace at the first rate
// with --stack-copy read --stop-limit-us (v8walk's copy made on a helper thread, a stop ended at the
// limit).
// With eBPF among the samplers, one more: eBPF at the first rate with --on-cpu (no sched_switch
// program: what sampling the threads' waits for a CPU costs is the difference).
// With BENCH_COMPARE=PATH (another v8walk binary, e.g. the last release's), one more phase a round
// per sampler at the first rate, run by that binary and marked "[B]": a change's cost measured side
// by side with another build, on the same target in the same rounds.
// Then, with BENCH_LONG_S=S (default 20; 0: none), each sampler at the first rate (and the compared
// binary) once more for S s, marked "S s": its CPU½ and reads½ (the second half of --duration) are
// then a steady state well past attaching, where a PHASE_S phase's are its seconds 3 to 6.
// Then, with BENCH_TPUT_PAIRS=N (default 8; 0: none), the throughput ratio measured closely: for
// each of BENCH_TPUT_CONFIGS (default "ptrace:99 burn:99 ptrace:999 burn:999 bpf:99 bpf:999
// stalls:100"; "ptrace:99:B": by the BENCH_COMPARE binary; "floork:999": the floor probe copying as
// v8walk does, what the stops alone cost; "stalls:100": --stalls 100, the loop watched and nothing
// sampled unless it stalls), N pairs of phases of BENCH_TPUT_PHASE_S s (default: the
// workload's pairPhaseS, else 3: longer for a target whose own rate swings over seconds)
// — unprofiled and profiled, back to back, the order alternating from pair to pair — and per pair
// the ratio of their throughputs (and the server's p99 latency): the mean and its 95 % confidence
// interval, which the rotating rounds above (two of each phase) are too few to give on this shared
// machine. "burn" is a control (bench/cpu_burn.c, CPU_BURN): a process that only takes the CPU
// share v8walk's ptrace pairs at that rate used (each pair's "its CPU"), in a burst a tick, at the
// normal policy: what the target loses to v8walk's CPU use alone, where its threads fill the CPUs.
// Prints a table per workload and writes everything to build/bench/real_cost.json.
//
//   V8WALK=build/v8walk FLOOR_PROBE=build/bench/floor_probe node bench/real_cost.js [--quick]
//   [--workloads a,b] (env: BENCH_ROUNDS=2 (0: only the pairs below), BENCH_PHASE_S=6, BENCH_RATES="99 999",
//   BENCH_SAMPLERS="ptrace bpf", BENCH_SATURATE=1, BENCH_COMPARE=, BENCH_LONG_S=20; --quick: 1 round of 3 s phases on the quick workloads)
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { chosen } = require('./real/workloads');
const { run } = require('./real/lib/run');
const { quantile } = require('./real/lib/stats');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const FLOOR_PROBE = process.env.FLOOR_PROBE || path.join(ROOT, 'build', 'bench', 'floor_probe');
const CPU_BURN = process.env.CPU_BURN || path.join(ROOT, 'build', 'bench', 'cpu_burn');
const NODE = process.env.NODE || process.execPath;
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(process.env.BENCH_ROUNDS || (QUICK ? 1 : 2));
const PHASE_S = Number(process.env.BENCH_PHASE_S || (QUICK ? 3 : 6));
const SETTLE_S = 0.7;
const RATES = (process.env.BENCH_RATES || '99 999').split(/\s+/).filter(Boolean).map(Number);
const SAMPLERS = (process.env.BENCH_SAMPLERS || 'ptrace bpf').split(/\s+/).filter(Boolean);
const SATURATE = process.env.BENCH_SATURATE !== '0';
const STOP_LIMIT_US = Number(process.env.BENCH_STOP_LIMIT_US ?? 0);
const COMPARE = process.env.BENCH_COMPARE || '';
const LONG_S = Number(process.env.BENCH_LONG_S ?? (QUICK ? 0 : 20));
const TPUT_PAIRS = Number(process.env.BENCH_TPUT_PAIRS ?? (QUICK ? 0 : 8));
const TPUT_PHASE_S = Number(process.env.BENCH_TPUT_PHASE_S || 0); // 0: the workload's pairPhaseS, else 3
const pairPhaseS = (w) => TPUT_PHASE_S || w.pairPhaseS || 3;
const TPUT_CONFIGS = (process.env.BENCH_TPUT_CONFIGS || 'ptrace:99 burn:99 ptrace:999 burn:999 bpf:99 bpf:999 stalls:100').split(/\s+/).filter(Boolean)
  .map((c) => {
    const [tool, hz, b] = c.split(':'); // "ptrace:99:B": run by BENCH_COMPARE's binary
    if (tool === 'floork') return { tool: 'floor', kernelCopy: true, hz: Number(hz), name: `floor k ${hz} Hz` };
    // "stalls:100": --stalls 100 (the event loop watched, nothing sampled unless it stalls)
    if (tool === 'stalls') return { tool, stallsMs: Number(hz), hz: 997, name: `stalls ${hz} ms` };
    return b === 'B' && COMPARE ? { tool, hz: Number(hz), bin: COMPARE, name: `${tool} ${hz} Hz [B]` } : { tool, hz: Number(hz), name: `${tool} ${hz} Hz` };
  });
const OUT = path.join(ROOT, 'build', 'bench', 'real_cost.json');
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
const OVERRUN_S = 30; // a profiler still running this long after its --duration is stopped (and reported)
const REPLY_TIMEOUT_MS = 120000; // a unit of the slowest workload under the costliest profiler

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowNs = () => process.hrtime.bigint();
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };
const mean = (v) => (v.length ? v.reduce((a, x) => a + x, 0) / v.length : NaN);


// CPU seconds (user + system) of a process, from /proc/PID/stat.
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}


// A loop workload under the control protocol: its progress timeline and gaps, accumulated from its
// replies (answered between units, which may last seconds: nothing waits for them until the end).
async function startLoopTarget(w) {
  const child = spawn(NODE, [w.script, '0'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, WORKLOAD_CONTROL: '1' } });
  const rl = readline.createInterface({ input: child.stdout });
  const timeline = [], gaps = [];
  let ready, done;
  const readyP = new Promise((resolve, reject) => { ready = resolve; child.on('exit', (c) => reject(new Error(`${w.name} exited (${c}) before it was ready`))); });
  const doneP = new Promise((resolve) => { done = resolve; });
  rl.on('line', (line) => {
    let m;
    try { m = JSON.parse(line); } catch { return; }
    if (m.ready) ready(m);
    if (m.timeline) for (const p of m.timeline) timeline.push(p);
    if (m.gapList) for (const g of m.gapList) gaps.push(g);
    if (m.done) done(m);
  });
  let seq = 0;
  const ping = () => child.stdin.write(`ping ${++seq}\n`); // drains the target's buffers; replies come when they come
  await readyP;
  // work done at time T (ns), interpolated on the timeline
  const workAt = (t) => {
    let lo = -1;
    for (let i = timeline.length - 1; i >= 0; i--) if (timeline[i][0] <= t) { lo = i; break; }
    if (lo < 0 || lo === timeline.length - 1) throw new Error(`${w.name}: no progress point around ${t}`);
    const [t0, w0] = timeline[lo], [t1, w1] = timeline[lo + 1];
    return w0 + (w1 - w0) * ((t - t0) / (t1 - t0));
  };
  const gapsIn = (a, b) => gaps.filter(([t]) => t >= a && t <= b).map(([, us]) => us);
  const finish = async () => {
    child.stdin.end('exit\n');
    const kill = setTimeout(() => child.kill('SIGKILL'), REPLY_TIMEOUT_MS);
    const m = await Promise.race([doneP, new Promise((r) => child.on('exit', () => r(null)))]);
    clearTimeout(kill);
    if (!m) throw new Error(`${w.name} exited without its final report`);
  };
  return { pid: child.pid, ping, workAt, gapsIn, finish, stop: () => child.kill('SIGKILL'), kind: 'loop' };
}

async function startServerTarget(w) {
  const { load } = require('./real/lib/load');
  const child = spawn(NODE, [w.script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    rl.once('line', (l) => resolve(JSON.parse(l).listening));
    child.on('exit', (c) => reject(new Error(`${w.name} exited (${c}) before it listened`)));
  });
  return { pid: child.pid, load: (s) => load(port, s, w.routes), finish: async () => {}, stop: () => child.kill('SIGTERM'), kind: 'server' };
}

function profilerArgs(config, pid, seconds) {
  if (config.tool === 'burn') return [CPU_BURN, [String(config.hz), String(config.percent), String(seconds)]];
  if (config.tool === 'floor') return [FLOOR_PROBE, [...(config.kernelCopy ? ['--kernel-copy'] : []), String(pid), String(config.hz), String(seconds)]];
  if (config.tool === 'stalls') return [config.bin || V8WALK, ['--mode', 'bpf', '--pid', String(pid), '--stalls', String(config.stallsMs), '--duration', String(seconds), '-o', '/dev/null']];
  const limit = config.limitUs ? ['--stack-copy', 'read', '--stop-limit-us', String(config.limitUs)] : config.readCopy ? ['--stack-copy', 'read'] : [];
  const onCpu = config.onCpu ? ['--on-cpu'] : [];
  return [config.bin || V8WALK, ['--mode', config.tool, '--pid', String(pid), '--rate', String(config.hz), '--duration', String(seconds), ...limit, ...onCpu, '--raw', '-o', '/dev/null']];
}

// v8walk's summary line (cli/summary.c: print_run_summary, for both samplers); figures it does not print are absent.
function parseSummary(tool, stderr) {
  const num = (re) => { const m = re.exec(stderr); return m ? Number(m[1]) : undefined; };
  const s = {
    samples: num(/v8walk: (\d+) samples in/), seconds: num(/samples in ([\d.]+) s/),
    withJs: num(/; (\d+) with JS frames/), errors: num(/errors (\d+) \(/),
    truncated: num(/(\d+) truncated/), missed: num(tool === 'bpf' ? /(\d+) lost\)/ : /(\d+) missed\)/),
    maxLagMs: num(/max lag ([\d.]+) ms/), cpuPercent: num(/v8walk CPU ([\d.]+)%/),
    allPauseMedianUs: num(/; pause median (\d+) us/),
    // the main thread's (what the floor probe stops); the summary gives it apart only when other
    // threads were stopped too
    pauseMedianUs: num(/the main thread's pause median (\d+) us/) ?? num(/; pause median (\d+) us/),
    pauseP99Us: num(/the main thread's pause median \d+ us, p99 (\d+) us/) ?? num(/; pause median \d+ us, p99 (\d+) us/),
    pauseMaxUs: num(/the main thread's pause median \d+ us, p99 \d+ us, max (\d+) us/) ?? num(/; pause median \d+ us, p99 \d+ us, max (\d+) us/),
    readsPerSample: num(/\(([\d.]+) reads per sample/), readsStopped: num(/reads per sample, ([\d.]+) while stopped/),
    // the second half of --duration (cli/summary.c): caches warm, no attach in it
    steadyReads: num(/steady state \(second half\): ([\d.]+) reads per sample/),
    steadyCpuPercent: num(/steady state \(second half\): .*?v8walk CPU ([\d.]+)%/),
    invalidated: num(/(\d+) samples had JS frames that a GC moved/) || 0,
    behind: num(/fell behind the sampling schedule (\d+) times/) || 0,
    // ptrace: ticks a stop stood for that came while it was on its way (the thread waited for a CPU)
    late: num(/; (\d+) \([\d.]+%\) ticks that came while a stop was on its way/) || 0,
    tooDeep: num(/(\d+) stacks were deeper than one eBPF sample holds/) || 0,
    // ptrace: stops whose stack the kernel copied at the stop (switch_copy.h), of all stops
    kernelCopies: num(/stacks copied by the kernel as each thread stopped: (\d+) of/),
    stops: num(/stacks copied by the kernel as each thread stopped: \d+ of (\d+) stops/),
  };
  if (s.samples === undefined) throw new Error(`no v8walk summary in: ${stderr.trim()}`);
  s.missedPercent = s.samples + s.missed > 0 ? (100 * s.missed) / (s.samples + s.missed) : 0;
  s.latePercent = s.samples > 0 ? (100 * s.late) / s.samples : 0;
  s.kernelCopyPercent = s.stops > 0 ? (100 * s.kernelCopies) / s.stops : tool === 'ptrace' ? 0 : undefined;
  return s;
}

// As many CPU-bound processes as CPUs (a saturated machine); returns their stop function.
function startBusy() {
  const busy = os.cpus().map(() => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return () => { for (const b of busy) b.kill('SIGKILL'); };
}

async function phase(target, config, seconds = PHASE_S) {
  const stopBusy = config.busy ? startBusy() : null;
  try {
    return await phaseRun(target, config, seconds);
  } finally {
    if (stopBusy) stopBusy();
  }
}

async function phaseRun(target, config, seconds) {
  let prof = null, profOut = null;
  const t0 = Number(nowNs());
  if (config.tool !== 'none') {
    const [cmd, args] = profilerArgs(config, target.pid, seconds);
    profOut = run(cmd, args, { timeoutMs: (seconds + OVERRUN_S) * 1000 });
  }
  await sleep(SETTLE_S * 1000);
  const ws = Number(nowNs()), cpuA = cpuSeconds(target.pid);
  let server;
  if (target.kind === 'server') server = await target.load(seconds - SETTLE_S - 0.2);
  else await sleep((seconds - SETTLE_S - 0.2) * 1000);
  const we = Number(nowNs()), cpuB = cpuSeconds(target.pid);
  if (profOut) prof = await profOut;
  else await sleep(200);
  const m = { config: config.name, tool: config.tool, hz: config.hz, busy: !!config.busy, t0, ws, we, windowS: (we - ws) / 1e9 };
  m.targetCpuS = cpuB - cpuA;
  m.targetCpuShare = m.targetCpuS / m.windowS;
  m.load1 = os.loadavg()[0];
  if (server) {
    m.rate = server.requestsPerSecond;
    m.perCpu = server.requests / Math.max(m.targetCpuS, 0.01);
    m.server = server;
  } else {
    target.ping();
  }
  if (prof) {
    m.profilerS = Number(prof.endNs - BigInt(t0)) / 1e9;
    if (prof.timedOut) {
      m.overran = true;
      process.stderr.write(`  ${config.name}: still running ${OVERRUN_S} s after its ${seconds} s duration; stopped: ${prof.err.trim().split('\n').pop()}\n`);
    } else if (prof.code !== 0) {
      throw new Error(`${config.name} exited with ${prof.code ?? prof.signal}: ${prof.err.trim()}`);
    }
    try {
      m.profiler = config.tool === 'floor' || config.tool === 'burn' ? JSON.parse(prof.out) : parseSummary(config.tool, prof.err);
    } catch (e) {
      if (!prof.timedOut) throw e;
      m.profiler = {}; // killed before it could report
    }
  }
  return m;
}

// A loop target's throughput and gaps per phase, once its whole timeline is in.
function loopFigures(target, m) {
  m.rate = (target.workAt(m.we) - target.workAt(m.ws)) / m.windowS;
  m.perCpu = (m.rate * m.windowS) / Math.max(m.targetCpuS, 0.01);
  const g = target.gapsIn(m.ws, m.we);
  m.gaps = { perSecond: g.length / m.windowS, p50Us: median(g), p99Us: quantile(g, 0.99), maxUs: g.length ? Math.max(...g) : 0 };
  const attach = target.gapsIn(m.t0, m.ws); // the first samples after attaching, outside the window
  m.gaps.attachMaxUs = attach.length ? Math.max(...attach) : 0;
}

function schedule(round) {
  const profiled = [];
  for (const hz of RATES) {
    profiled.push({ tool: 'floor', hz, name: `floor ${hz} Hz` });
    profiled.push({ tool: 'floor', hz, kernelCopy: true, name: `floor k ${hz} Hz` });
    for (const tool of SAMPLERS) profiled.push({ tool, hz, name: `${tool} ${hz} Hz` });
  }
  if (SAMPLERS.includes('ptrace'))
    profiled.push({ tool: 'ptrace', hz: RATES[0], readCopy: true, name: `ptrace read ${RATES[0]} Hz` });
  if (STOP_LIMIT_US && SAMPLERS.includes('ptrace'))
    profiled.push({ tool: 'ptrace', hz: RATES[0], limitUs: STOP_LIMIT_US, name: `ptrace ${RATES[0]} Hz ≤${STOP_LIMIT_US / 1000}ms` });
  if (SAMPLERS.includes('bpf'))
    profiled.push({ tool: 'bpf', hz: RATES[0], onCpu: true, name: `bpf ${RATES[0]} Hz on-cpu` });
  if (COMPARE)
    for (const tool of SAMPLERS) profiled.push({ tool, hz: RATES[0], bin: COMPARE, name: `${tool} ${RATES[0]} Hz [B]` });
  const order = profiled.map((_, i) => profiled[(i + round * 2) % profiled.length]);
  const half = Math.ceil(order.length / 2);
  const probes = [{ tool: 'floor', hz: RATES[0], name: `floor ${RATES[0]} Hz +busy`, busy: true },
    { tool: 'ptrace', hz: RATES[0], name: `ptrace ${RATES[0]} Hz +busy`, busy: true }];
  if (round % 2) probes.reverse();
  const busy = SATURATE ? [{ tool: 'none', name: 'unprofiled +busy', busy: true }, ...probes] : [];
  return [{ tool: 'none', name: 'unprofiled' }, ...order.slice(0, half), { tool: 'none', name: 'unprofiled' }, ...order.slice(half), ...busy];
}

// The long phases: each sampler at the first rate (and the compared binary's) for LONG_S s once a
// workload's rounds are done, so that the second half of --duration (CPU½, reads½) is a steady
// state well past attaching — in a PHASE_S phase it is seconds 3 to 6, while the caches still
// fill. Their ratios are to the last round's unprofiled phases.
function longConfigs() {
  const out = [];
  for (const tool of LONG_S ? SAMPLERS : []) {
    out.push({ tool, hz: RATES[0], name: `${tool} ${RATES[0]} Hz ${LONG_S} s` });
    if (COMPARE) out.push({ tool, hz: RATES[0], bin: COMPARE, name: `${tool} ${RATES[0]} Hz [B] ${LONG_S} s` });
  }
  return out;
}

async function measureWorkload(w) {
  const target = w.kind === 'server' ? await startServerTarget(w) : await startLoopTarget(w);
  try {
    // warm up: optimized code, caches
    if (target.kind === 'server') await target.load(3);
    else await sleep(3000);
    const phases = [];
    const runs = [];
    for (let r = 0; r < ROUNDS; r++) for (const c of schedule(r)) runs.push({ c, r, s: PHASE_S });
    for (const c of longConfigs()) runs.push({ c, r: ROUNDS - 1, s: LONG_S });
    for (const { c, r, s } of runs) {
      const m = await phase(target, c, s);
      m.round = r;
      phases.push(m);
      process.stderr.write(`  ${w.name} round ${r + 1}: ${c.name.padEnd(14)}` + (m.server ? ` ${m.rate.toFixed(1)} req/s` : '') +
        ` target on CPU ${(100 * m.targetCpuShare).toFixed(0)}%` +
        (m.profiler && m.profiler.pauseMedianUs !== undefined ? `, pause median ${m.profiler.pauseMedianUs} us` : '') + '\n');
    }
    const pairs = await measurePairs(w, target);
    await target.finish();
    if (target.kind === 'loop') for (const m of [...phases, ...pairs]) loopFigures(target, m);
    return { workload: w.name, covers: w.covers, kind: target.kind, pid: target.pid, phases, pairs, pairPhaseS: pairPhaseS(w) };
  } finally {
    target.stop();
  }
}

// BENCH_TPUT_PAIRS pairs of short phases per config, unprofiled and profiled back to back, the
// order alternating (their throughputs are figured once the target's timeline is in).
// A burn config (cpu_burn.c) takes the CPU share v8walk used in the pairs of ptrace at its rate,
// measured just before (BENCH_BURN_PERCENT, default 5, when those did not run first).
function burnShare(out, hz) {
  const cpu = out.filter((m) => m.config === `ptrace ${hz} Hz` && m.profiler && m.profiler.cpuPercent !== undefined)
    .map((m) => m.profiler.cpuPercent);
  return cpu.length ? Number(mean(cpu).toFixed(2)) : Number(process.env.BENCH_BURN_PERCENT || 5);
}

async function measurePairs(w, target) {
  const out = [];
  for (const listed of TPUT_PAIRS > 0 ? TPUT_CONFIGS : []) {
    let config = listed;
    if (listed.tool === 'burn') {
      const percent = burnShare(out, listed.hz);
      config = { ...listed, percent, name: `burn ${percent} % at ${listed.hz} Hz` };
    }
    for (let i = 0; i < TPUT_PAIRS; i++) {
      const two = i % 2 ? [config, { tool: 'none', name: 'unprofiled' }] : [{ tool: 'none', name: 'unprofiled' }, config];
      for (const c of two) {
        const m = await phase(target, c, pairPhaseS(w));
        m.pair = { config: config.name, i };
        out.push(m);
      }
    }
    process.stderr.write(`  ${w.name}: ${TPUT_PAIRS} pairs of ${config.name} and unprofiled\n`);
  }
  return out;
}

// Student's t for a 95 % two-sided interval with n - 1 degrees of freedom.
const T95 = [NaN, 12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09];
function meanCi(v) {
  const n = v.length, m = mean(v);
  if (n < 2) return { mean: m, half: NaN, n };
  const sd = Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  return { mean: m, half: (T95[Math.min(n - 1, T95.length - 1)] || 1.96) * sd / Math.sqrt(n), n };
}

// Per config: the pairs' throughput ratios (profiled ÷ unprofiled), and the server's p99 latency ratios.
function summarisePairs(result) {
  const rows = [];
  for (const config of [...new Set((result.pairs || []).map((p) => p.pair.config))]) {
    const ph = result.pairs.filter((p) => p.pair.config === config);
    const byPair = [...new Set(ph.map((p) => p.pair.i))].map((i) => ph.filter((p) => p.pair.i === i));
    const both = byPair.filter((two) => two.length === 2);
    const prof = (two) => two.find((p) => p.tool !== 'none'), base = (two) => two.find((p) => p.tool === 'none');
    const row = { config, tput: meanCi(both.map((two) => prof(two).rate / base(two).rate)),
      cpuPercent: mean(both.map((two) => (prof(two).profiler || {}).cpuPercent).filter((x) => x !== undefined)) };
    if (both.length && prof(both[0]).server)
      row.p99 = meanCi(both.map((two) => prof(two).server.p99Ms / base(two).server.p99Ms));
    rows.push(row);
  }
  return rows;
}

function printPairs(result, rows) {
  if (!rows.length) return;
  console.log(`  throughput in ${rows[0].tput.n} pairs of ${result.pairPhaseS} s phases (profiled ÷ unprofiled, mean ± 95 % CI):` +
    rows.map((r) => ` ${r.config} ${f1(r.tput.mean, 3)} ± ${f1(r.tput.half, 3)} (its CPU ${f1(r.cpuPercent)} %)` +
      (r.p99 ? ` (p99 latency × ${f1(r.p99.mean, 2)} ± ${f1(r.p99.half, 2)})` : '')).join(';'));
}

// Per config: means over rounds of ratios to the same round's unprofiled phases.
function summarise(result) {
  const rows = [];
  // a phase's baseline: the unprofiled phases of its round, saturated or not as it was
  const baseOf = (r, busy = false) => result.phases.filter((p) => p.tool === 'none' && p.round === r && p.busy === busy);
  // the floor probe's phases at a rate: copying with process_vm_readv, or (kernel) as v8walk does by default
  const floorOf = (hz, busy, kernel = false) => result.phases.filter((p) => p.tool === 'floor' && p.hz === hz && p.busy === busy &&
    !!p.profiler.kernelCopy === kernel).map((p) => p.profiler);
  const configs = [...new Set(result.phases.filter((p) => p.tool !== 'none').map((p) => p.config))];
  const unprofRow = (busy) => {
    const b = result.phases.filter((p) => p.tool === 'none' && p.busy === busy);
    if (!b.length) return null;
    return {
      config: busy ? 'unprofiled +busy' : 'unprofiled', tool: 'none', busy, rate: mean(b.map((p) => p.rate)), targetCpu: mean(b.map((p) => p.targetCpuShare)),
      gaps: b[0].gaps ? { perSecond: mean(b.map((p) => p.gaps.perSecond)), p99Us: mean(b.map((p) => p.gaps.p99Us)), maxUs: Math.max(...b.map((p) => p.gaps.maxUs)),
        attachMaxUs: Math.max(...b.map((p) => p.gaps.attachMaxUs)) } : undefined,
      p50Ms: b[0].server ? mean(b.map((p) => p.server.p50Ms)) : undefined, p99Ms: b[0].server ? mean(b.map((p) => p.server.p99Ms)) : undefined,
    };
  };
  rows.push(unprofRow(false));
  const busyConfigs = configs.filter((name) => result.phases.find((p) => p.config === name).busy);
  for (const name of [...configs.filter((c) => !busyConfigs.includes(c)), ...busyConfigs]) {
    const ph = result.phases.filter((p) => p.config === name);
    const { tool, hz, busy } = ph[0];
    if (name === busyConfigs[0]) rows.push(unprofRow(true));
    const ratio = (f) => mean(ph.map((p) => f(p) / mean(baseOf(p.round, busy).map(f))));
    const prof = ph.map((p) => p.profiler);
    const floorMedian = median(floorOf(hz, busy).map((f) => f.pauseMedianUs));
    const kFloorMedian = median(floorOf(hz, busy, true).map((f) => f.pauseMedianUs));
    const row = {
      config: name, tool, hz, throughputRatio: ratio((p) => p.rate),
      throughputRange: [Math.min(...ph.map((p) => p.rate / mean(baseOf(p.round, busy).map((b) => b.rate)))), Math.max(...ph.map((p) => p.rate / mean(baseOf(p.round, busy).map((b) => b.rate))))],
      targetCpu: mean(ph.map((p) => p.targetCpuShare)), perCpuRatio: ratio((p) => p.perCpu),
    };
    if (ph[0].gaps) {
      row.gaps = { perSecond: mean(ph.map((p) => p.gaps.perSecond)), p50Us: median(ph.map((p) => p.gaps.p50Us)), p99Us: mean(ph.map((p) => p.gaps.p99Us)),
        maxUs: Math.max(...ph.map((p) => p.gaps.maxUs)), attachMaxUs: Math.max(...ph.map((p) => p.gaps.attachMaxUs)) };
    }
    if (ph[0].server) { row.p50Ratio = ratio((p) => p.server.p50Ms); row.p99Ratio = ratio((p) => p.server.p99Ms); }
    if (tool === 'floor') {
      Object.assign(row, { pauseMedianUs: median(prof.map((f) => f.pauseMedianUs)), pauseP99Us: Math.max(...prof.map((f) => f.pauseP99Us)), pauseMaxUs: Math.max(...prof.map((f) => f.pauseMaxUs)), cpuPercent: mean(prof.map((f) => f.cpuPercent)), samples: prof.reduce((a, f) => a + f.samples, 0),
        kernelCopyPercent: prof[0].kernelCopy ? mean(prof.map((f) => (100 * f.kernelCopies) / Math.max(f.samples, 1))) : undefined });
    } else {
      Object.assign(row, {
        overran: ph.filter((p) => p.overran).length, longestRunS: Math.max(...ph.map((p) => p.profilerS)),
        samples: prof.reduce((a, s) => a + (s.samples || 0), 0), missedPercent: mean(prof.map((s) => s.missedPercent)),
        latePercent: mean(prof.map((s) => s.latePercent || 0)),
        cpuPercent: mean(prof.map((s) => s.cpuPercent)), steadyCpuPercent: mean(prof.map((s) => s.steadyCpuPercent).filter((x) => x !== undefined)),
        steadyReads: mean(prof.map((s) => s.steadyReads).filter((x) => x !== undefined)), behind: prof.reduce((a, s) => a + s.behind, 0), maxLagMs: Math.max(...prof.map((s) => s.maxLagMs)),
      });
      if (tool === 'ptrace') {
        Object.assign(row, {
          pauseMedianUs: median(prof.map((s) => s.pauseMedianUs)), allPauseMedianUs: median(prof.map((s) => s.allPauseMedianUs)), pauseP99Us: Math.max(...prof.map((s) => s.pauseP99Us)), pauseMaxUs: Math.max(...prof.map((s) => s.pauseMaxUs ?? 0)),
          readsPerSample: mean(prof.map((s) => s.readsPerSample)), floorMedianUs: floorMedian, pauseOverFloor: median(prof.map((s) => s.pauseMedianUs)) / floorMedian,
          kFloorMedianUs: kFloorMedian, pauseOverKFloor: median(prof.map((s) => s.pauseMedianUs)) / kFloorMedian,
          kernelCopyPercent: mean(prof.map((s) => s.kernelCopyPercent)),
        });
      }
      if (tool === 'bpf') row.tooDeep = prof.reduce((a, s) => a + (s.tooDeep || 0), 0);
    }
    rows.push(row);
  }
  return rows;
}

const f1 = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));

function printTable(result, rows) {
  console.log(`\n${result.workload} — ${result.covers} (pid ${result.pid})`);
  const server = result.kind === 'server';
  console.log(['phase'.padEnd(14), 'tput ratio'.padStart(10), 'range'.padStart(12), server ? 'p50 ×'.padStart(6) : 'gaps/s'.padStart(7), server ? 'p99 ×'.padStart(6) : 'gap p99'.padStart(8), server ? '' : 'gap max'.padStart(8), server ? '' : '1st 0.7s'.padStart(9),
    'per CPU-s'.padStart(9), 'on CPU'.padStart(7), 'pause p50'.padStart(10), 'p99'.padStart(7), 'max'.padStart(7), '÷floor'.padStart(7), '÷kfloor'.padStart(8), 'k-copy%'.padStart(8), 'all p50'.padStart(8), 'reads'.padStart(6), 'reads½'.padStart(7), 'CPU %'.padStart(6), 'CPU½'.padStart(6), 'missed%'.padStart(8), 'late%'.padStart(6), 'behind'.padStart(7), 'samples'.padStart(8)].join(' '));
  for (const r of rows) {
    const cells = [r.config.padEnd(14)];
    if (r.tool === 'none') {
      cells.push(`${f1(r.rate, 2)}/s`.padStart(10), ''.padStart(12));
      if (server) cells.push(`${f1(r.p50Ms)}ms`.padStart(6), `${f1(r.p99Ms)}ms`.padStart(6));
      else cells.push(f1(r.gaps && r.gaps.perSecond).padStart(7), f1(r.gaps && r.gaps.p99Us, 0).padStart(8), f1(r.gaps && r.gaps.maxUs, 0).padStart(8), f1(r.gaps && r.gaps.attachMaxUs, 0).padStart(9));
      cells.push('1.000'.padStart(9), `${f1(100 * r.targetCpu, 0)}%`.padStart(7));
      console.log(cells.join(' '));
      continue;
    }
    cells.push(f1(r.throughputRatio, 3).padStart(10), `${f1(r.throughputRange[0], 2)}..${f1(r.throughputRange[1], 2)}`.padStart(12));
    if (server) cells.push(f1(r.p50Ratio, 2).padStart(6), f1(r.p99Ratio, 2).padStart(6));
    else cells.push(f1(r.gaps && r.gaps.perSecond).padStart(7), f1(r.gaps && r.gaps.p99Us, 0).padStart(8), f1(r.gaps && r.gaps.maxUs, 0).padStart(8), f1(r.gaps && r.gaps.attachMaxUs, 0).padStart(9));
    cells.push(f1(r.perCpuRatio, 3).padStart(9), `${f1(100 * r.targetCpu, 0)}%`.padStart(7), f1(r.pauseMedianUs, 0).padStart(10), f1(r.pauseP99Us, 0).padStart(7), f1(r.pauseMaxUs, 0).padStart(7), f1(r.pauseOverFloor, 2).padStart(7), f1(r.pauseOverKFloor, 2).padStart(8), f1(r.kernelCopyPercent, 1).padStart(8), f1(r.allPauseMedianUs, 0).padStart(8),
      f1(r.readsPerSample).padStart(6), f1(r.steadyReads).padStart(7), f1(r.cpuPercent).padStart(6), f1(r.steadyCpuPercent).padStart(6), f1(r.missedPercent, 2).padStart(8), (r.tool === 'ptrace' ? f1(r.latePercent, 2) : '—').padStart(6), String(r.behind ?? '—').padStart(7), String(r.samples ?? '—').padStart(8));
    if (r.overran) cells.push(` ran ${f1(r.longestRunS, 0)} s, past its --duration (${r.overran} phase(s) stopped)`);
    console.log(cells.join(' '));
  }
}

async function main() {
  const workloads = chosen(process.argv);
  const version = execFileSync(NODE, ['--version']).toString().trim();
  console.log(`real-program sample cost: node ${version}, ${workloads.map((w) => w.name).join(', ')}; ${ROUNDS} round(s) of ` +
    `${schedule(0).length} phases of ${PHASE_S} s (measured from ${SETTLE_S} s after the profiler starts), ` +
    `${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)} at start`);
  const results = [];
  for (const w of workloads) {
    const result = await measureWorkload(w);
    result.rows = ROUNDS > 0 ? summarise(result) : [];
    result.pairRows = summarisePairs(result);
    if (result.rows.length) printTable(result, result.rows); // BENCH_ROUNDS=0: the pairs only
    printPairs(result, result.pairRows);
    results.push(result);
  }
  console.log('\ntput ratio: target work per second ÷ the same round\'s unprofiled phases (mean over rounds; range = per round). ' +
    'per CPU-s: target work per CPU-second of the target, as a ratio (what the profiler costs inside the target, apart from lost ' +
    'scheduling; a ptrace stop costs wall time, not target CPU). on CPU: the target\'s CPU share (below 100%: it waited for a CPU ' +
    'or was stopped). gaps: the target\'s own hot-loop probe, gaps > 20 µs (per second, p99 and max in µs; 1st 0.7s: the longest gap between the profiler\'s start and the window, i.e. attaching and the first samples). pause: v8walk\'s summary ' +
    '(ptrace, the main thread\'s stops: the thread the floor probe stops; eBPF never stops the target) or the floor probe\'s. ' +
    '÷floor: v8walk\'s main-thread pause median ÷ the floor probe\'s (process_vm_readv) at the same rate in the same run; ÷kfloor: ÷ the floor probe\'s copying as v8walk does by default (the kernel at the stop, "floor k"); k-copy%: the stops whose stack the kernel copied. all p50: v8walk\'s pause median over every thread it stopped. reads, CPU %: over the whole phase ' +
    '(attaching and the first samples included); reads½, CPU½: over the second half of v8walk\'s --duration (its "steady state" ' +
    `line): seconds ${PHASE_S / 2}-${PHASE_S} after attaching, while caches still fill` + (LONG_S ? `; in the "${LONG_S} s" rows, run once after the rounds, seconds ${LONG_S / 2}-${LONG_S}` : '') +
    '. missed%: ticks no sample stands for; late%: of the samples, ptrace\'s ticks that came while the ' +
    'thread\'s stop was on its way (it waited for a CPU), which that stop stands for.');
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ node: version, cpus: os.cpus().length, rounds: ROUNDS, phaseS: PHASE_S, settleS: SETTLE_S, results }, null, 1));
  console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);
  console.log(`written: ${path.relative(process.cwd(), OUT)}`);
}

main().catch((e) => { console.error(`real_cost: ${e.stack || e.message}`); process.exit(1); });
