// harness.js — the loop every real workload runs in (bench/WORKLOADS.md): repeat one unit of
// work for a number of seconds (argv[2], else WORKLOAD_SECONDS, else 10; 0 = until told to stop),
// yielding to the event loop between units, and report throughput as one JSON line on stdout at the
// end. On request it reports the same figures so far:
//   SIGUSR2                      → one {"status": true, …} line
//   stdin "ping K" (only when WORKLOAD_CONTROL=1, as the benchmarks run it) → {"pong": K, …}
//   stdin "exit" / EOF (WORKLOAD_CONTROL=1) and SIGTERM/SIGINT → the final line (with the timeline
//                                  and gap list under WORKLOAD_CONTROL=1), then exit 0
// Every report carries `iterations` (units completed), `work` (a finer count of progress: ticks and
// steps, see below), `cpuUs` (the process's CPU time), `timeline` — [CLOCK_MONOTONIC ns, work] points
// recorded since the previous report (in pongs and the final line under control only, with
// `gapList`: [ns at its end, µs] per gap), every TICK_POINT ticks (at most one per POINT_MIN_NS), at
// every step and at every unit's end, so
// a benchmark computes the throughput of any window of its own clock even when a unit lasts seconds
// and requests are answered only between units — and `gaps`: the gaps seen by tick(), a probe a
// workload calls from its hot loop. A gap is the time between two ticks of the same unit longer than
// GAP_MIN_NS; gaps are collected since the previous report and summarised as count, median, p99 and
// max in µs: what a stopped thread looks like from inside the target.
//   tick()  gap probe + one unit of work (call it from a hot callback, e.g. per token)
//   step(n) n units of work, no gap probe (per file, per document)
'use strict';

const GAP_MIN_NS = 20000n; // 20 µs: far above a hot loop's tick spacing, below any ptrace stop
const GAP_KEEP = 200000;   // gaps kept per window (bounded memory on a long window)
const TICK_POINT = 4096;   // ticks between timeline points
const POINT_MIN_NS = 2e6;  // and at most one tick point per 2 ms
const TIMELINE_KEEP = 400000;

function gapWindow() { return { gaps: [], ends: [], ticks: 0, dropped: 0 }; }

function gapSummary(w) {
  const v = Float64Array.from(w.gaps).sort();
  const at = (q) => (v.length ? +v[Math.min(v.length - 1, Math.floor(q * v.length))].toFixed(1) : 0);
  return { count: v.length + w.dropped, ticks: w.ticks, p50Us: at(0.5), p99Us: at(0.99), maxUs: at(1) };
}

function secondsWanted() {
  const arg = process.argv[2] ?? process.env.WORKLOAD_SECONDS ?? '10';
  const s = Number(arg);
  if (!Number.isFinite(s) || s < 0) {
    process.stderr.write(`workload: the duration must be a number of seconds (0 = until stopped), got '${arg}'\n`);
    process.exit(2);
  }
  return s;
}

// run({name, unit, fine, setup(), iterate(i)}) — setup and iterate may return promises; fine: the
// workload counts its own work with tick/step (else one unit = one work).
function run(spec) {
  const seconds = secondsWanted();
  const state = { iterations: 0, work: 0, sincePoint: 0, startNs: 0n, window: gapWindow(), prevTick: 0n, stopping: false, timeline: [] };
  const point = () => {
    state.sincePoint = 0;
    const t = Number(process.hrtime.bigint()); // exact below 2^53 ns (104 days of uptime)
    if (state.timeline.length < TIMELINE_KEEP) state.timeline.push([t, state.work]);
    return t;
  };
  let lastTickPoint = 0;

  const report = (extra, withTimeline) => {
    const now = process.hrtime.bigint();
    const c = process.cpuUsage();
    const elapsed = state.startNs ? Number(now - state.startNs) / 1e9 : 0;
    const gaps = gapSummary(state.window);
    const gapList = state.window.gaps.map((us, i) => [state.window.ends[i], +us.toFixed(1)]);
    state.window = gapWindow();
    const timeline = state.timeline;
    state.timeline = [];
    return JSON.stringify({
      ...extra, workload: spec.name, unit: spec.unit, iterations: state.iterations,
      seconds: +elapsed.toFixed(3), perSecond: elapsed ? +(state.iterations / elapsed).toFixed(3) : 0,
      work: state.work, nowNs: String(now), cpuUs: c.user + c.system, pid: process.pid, gaps, ...(withTimeline ? { timeline, gapList } : {}),
    }) + '\n';
  };
  const finish = () => {
    if (state.stopping) return;
    state.stopping = true;
    process.stdout.write(report({ done: true }, process.env.WORKLOAD_CONTROL === '1'), () => process.exit(0));
  };

  const tick = () => {
    const t = process.hrtime.bigint();
    const d = t - state.prevTick;
    state.prevTick = t;
    state.window.ticks++;
    state.work++;
    if (++state.sincePoint >= TICK_POINT) {
      state.sincePoint = 0;
      const now = Number(t);
      if (now - lastTickPoint >= POINT_MIN_NS) lastTickPoint = point();
    }
    if (d > GAP_MIN_NS) {
      if (state.window.gaps.length < GAP_KEEP) {
        state.window.gaps.push(Number(d) / 1000);
        state.window.ends.push(Number(t));
      } else {
        state.window.dropped++;
      }
    }
  };
  const step = (n = 1) => { state.work += n; point(); };

  process.on('SIGUSR2', () => process.stdout.write(report({ status: true })));
  process.on('SIGTERM', finish);
  process.on('SIGINT', finish);
  if (process.env.WORKLOAD_CONTROL === '1') {
    const commands = require('node:readline').createInterface({ input: process.stdin });
    commands.on('line', (line) => {
      const ping = /^ping (\d+)/.exec(line);
      if (ping) process.stdout.write(report({ pong: +ping[1] }, true));
      else if (line === 'exit') finish();
    });
    commands.on('close', finish);
  }

  const loop = async () => {
    if (spec.setup) await spec.setup();
    state.startNs = process.hrtime.bigint();
    point();
    const deadline = seconds > 0 ? state.startNs + BigInt(Math.round(seconds * 1e9)) : null;
    if (process.env.WORKLOAD_CONTROL === '1') process.stdout.write(JSON.stringify({ ready: true, pid: process.pid, workload: spec.name }) + '\n');
    for (;;) {
      state.prevTick = process.hrtime.bigint();
      const r = spec.iterate(state.iterations);
      if (r && typeof r.then === 'function') await r;
      state.iterations++;
      if (!spec.fine) state.work++;
      point();
      if (state.stopping) return;
      if (deadline !== null && process.hrtime.bigint() >= deadline) return finish();
      await new Promise((resolve) => setImmediate(resolve)); // answer requests between units
    }
  };
  setImmediate(() => loop().catch((e) => { // after run() returned: iterate may use its tick
    process.stderr.write(`workload ${spec.name}: ${e.stack || e}\n`);
    process.exit(1);
  }));
  return { tick, step };
}

// A deterministic pseudo-random source, so every run generates the same inputs.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { run, rng };
