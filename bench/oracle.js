// oracle.js — `make bench`: does v8walk's profile agree with V8's own? Each real workload
// (bench/WORKLOADS.md) runs ONCE per Node line under `node --cpu-prof` (the flag is for this oracle
// only), and v8walk samples that same process in consecutive windows, one per rate and attribution
// (--v8-self, and v8walk's default beside it), each window sampled by ptrace and eBPF at once (two
// v8walk processes: eBPF stops nothing, and a ptrace stop of a few µs is no time the eBPF sampler
// misses), each written as a .cpuprofile (the main thread). V8's samples are cut to each window
// (both profiles' startTime + timeDeltas are CLOCK_MONOTONIC µs), and the two profiles' per-function
// self-time shares are compared by the same code (bench/oracle_compare.js: identity = script + V8's
// line and column of the function; builtins and native callbacks charged to their JS caller; GC and
// "(program)" buckets of their own; "(idle)" left out: v8walk samples running threads only):
//   v8walk runs with --no-source-maps (V8 names the running script; a bundle's source map may send
//     a helper the bundler injected to another file, e.g. markdown-it's _defineProperty to
//     entities' bin-trie-flags.js) and --v8-self: V8 expands the inlined functions of optimized
//     code at return addresses but (before V8 14) charges a pc inside optimized code to the
//     function the code was compiled for, and a frameless builtin's sample to the caller of the
//     JS frame it runs on (docs/accuracy.md); ORACLE_V8_SELF=0: v8walk's
//     default, =both: a window of each, side by side, marked `inl` without --v8-self
//   ORACLE_IDLE=1 (ptrace only): with --idle, the main thread off-CPU too (its event-loop wait is
//     "(idle)" in both profiles, left out); =both: a window of each, marked `idle`
//   overlap = Σ min(share_v8walk, share_V8); perfect@n = the mean overlap with V8's distribution of
//     n samples drawn from it (n = v8walk's samples), 200 draws; ratio = overlap ÷ perfect@n;
//     both = overlap ÷ the mean overlap of two draws from it, of n and of m (V8's samples): V8's
//     profile is a draw too, as noisy as v8walk's at 999 Hz.
//   GC clock: the workload also runs with `-r bench/real/lib/gc_clock.js`, which records every
//     collection the main thread reports (perf_hooks: GC prologue to epilogue, monotonic µs); the
//     time inside them in a window ÷ the window's busy time is the GC share by the process's own
//     clock, and `clk ratio` compares against V8's profile with its GC bucket set to that share
//     (V8's sample counts under-charge GC: its sampler thread runs late while the collector's
//     threads hold the CPUs — docs/accuracy.md).
// Prints a table and the functions that differ most; writes build/bench/oracle.json.
//
// Then the summary: per workload, Node line and sampler, the ratio with --v8-self and without.
//
//   V8WALK=build/v8walk node bench/oracle.js [--quick] [--workloads a,b]
//   node bench/oracle.js --markdown      (the last run's summary as docs/accuracy.md's table)
//   (env: ORACLE_NODES="20.20.2 24.21.0" (scripts/fetch-node.sh; --quick, or NODE set: that one
//   node), ORACLE_WINDOW_S=12 (--quick 5), ORACLE_WARM_S=4, BENCH_RATES="99",
//   BENCH_SAMPLERS="ptrace bpf", ORACLE_V8_SELF=both (--quick: 1; 0: the default only),
//   ORACLE_IDLE=0, ORACLE_KEEP=DIR: both sides' profiles and v8walk's summaries kept in DIR/NODE/WORKLOAD/)
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { chosen } = require('./real/workloads');
const { run } = require('./real/lib/run');
const { compareProfiles, profileShares, gcClockUs, withGcShare, shareOf, GC } = require('./oracle_compare');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const QUICK = process.argv.includes('--quick');
const NODE_LINES = process.env.NODE || QUICK ? [process.env.NODE || process.execPath]
  : (process.env.ORACLE_NODES || '20.20.2 24.21.0').split(/\s+/).filter(Boolean);
const WINDOW_S = Number(process.env.ORACLE_WINDOW_S || (QUICK ? 5 : 12));
const WARM_S = Number(process.env.ORACLE_WARM_S || 4);
const RATES = (process.env.BENCH_RATES || '99').split(/\s+/).filter(Boolean).map(Number);
const SAMPLERS = (process.env.BENCH_SAMPLERS || 'ptrace bpf').split(/\s+/).filter(Boolean);
const OUT = path.join(ROOT, 'build', 'bench', 'oracle.json');
const GC_CLOCK = path.join(__dirname, 'real', 'lib', 'gc_clock.js');
const IDLE = process.env.ORACLE_IDLE === 'both' ? [false, true] : [process.env.ORACLE_IDLE === '1'];
const V8_SELF_ENV = process.env.ORACLE_V8_SELF || (QUICK ? '1' : 'both');
const V8_SELF = V8_SELF_ENV === '0' ? [false] : V8_SELF_ENV === 'both' ? [true, false] : [true];
const KEEP = process.env.ORACLE_KEEP; // a directory: each workload's profiles are kept in KEEP/NAME
const label = (c) => `${c.tool} ${c.hz} Hz${c.v8self ? '' : ' inl'}${c.idle ? ' idle' : ''}`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));



// A node binary: a path, or a version scripts/fetch-node.sh fetches (cached).
function nodeBinary(spec) {
  if (spec.includes('/')) return spec;
  return execFileSync(path.join(ROOT, 'scripts', 'fetch-node.sh'), [spec], { encoding: 'utf8' }).trim();
}

// One window: v8walk with configuration c on pid, its .cpuprofile read back (or why not).
async function sampleWindow(w, c, pid, dir) {
  const ours = path.join(dir, `${c.tool}-${c.hz}-${c.v8self ? 'self' : 'inl'}${c.idle ? '-idle' : ''}.v8walk.cpuprofile`);
  const r = await run(V8WALK, ['--mode', c.tool, '--pid', String(pid), '--rate', String(c.hz), '--duration', String(WINDOW_S),
    '--no-source-maps', ...(c.v8self ? ['--v8-self'] : []), ...(c.idle ? ['--idle'] : []), '-o', ours],
    { timeoutMs: (WINDOW_S + 30) * 1000 });
  if (r.timedOut) {
    process.stderr.write(`oracle: ${w.name}: v8walk ${label(c)} still ran 30 s after its ${WINDOW_S} s duration; stopped, window left out\n`);
    return { ...c, overran: true, summary: r.err.trim().split('\n').pop() };
  }
  if (r.code !== 0) throw new Error(`v8walk ${label(c)} exited with ${r.code ?? r.signal}: ${r.err.trim()}`);
  if (KEEP) fs.writeFileSync(ours.replace(/\.cpuprofile$/, '.stderr'), r.err); // its whole summary
  const profile = JSON.parse(fs.readFileSync(ours, 'utf8'));
  return { ...c, profile, startUs: profile.startTime, endUs: profile.endTime, summary: r.err.trim().split('\n').pop() };
}

// V8's sampler — its profiler thread, "v8:ProfEvntProc", which wakes each interval and sends the
// main thread SIGPROF (SamplingEventsProcessor::Run, src/profiler/cpu-profiler.cc;
// Sampler::DoSample, src/libsampler/sampler.cc) — put at SCHED_FIFO, so that its samples are
// taken when they are due rather than when the scheduler next gives it a CPU. Left to the
// scheduler on 2 CPUs, it is late exactly when the CPUs are busy: on koa, where the load
// generator and the server's request arrival keep both busy at once, V8 put 17 % of the main
// thread's time in the code run as a request arrives (under parserOnHeadersComplete), and 23-24 %
// at SCHED_FIFO, where v8walk put 22-26 % either way (ratio 0.89-0.91 → 0.97-0.98). ORACLE_V8_FIFO=0
// leaves it to the scheduler.
const V8_FIFO = process.env.ORACLE_V8_FIFO !== '0';
function profilerOnTime(pid) {
  const tids = fs.readdirSync(`/proc/${pid}/task`).filter((t) => {
    try { return fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim() === 'v8:ProfEvntProc'; } catch { return false; }
  });
  if (tids.length !== 1) throw new Error(`process ${pid}: V8's profiler thread (v8:ProfEvntProc) not found among its threads`);
  execFileSync('chrt', ['-f', '-p', '50', tids[0]]);
}

// One workload under --cpu-prof, sampled by v8walk in one window per slot (the configurations of
// a slot, one per sampler, sample it at once).
async function oracleRun(w, node, slots, dir) {
  const total = WARM_S + slots.length * (WINDOW_S + 6) + 10; // ended by SIGTERM after the last window
  const gcClock = path.join(dir, 'gc-clock.json');
  const args = ['-r', GC_CLOCK, '--cpu-prof', `--cpu-prof-dir=${dir}`, w.script];
  if (w.kind !== 'server') args.push(String(total));
  const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, V8WALK_GC_CLOCK: gcClock } });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let loadDone = Promise.resolve();
  if (w.kind === 'server') {
    const { load } = require('./real/lib/load');
    const rl = readline.createInterface({ input: child.stdout });
    const port = await new Promise((resolve) => rl.once('line', (l) => resolve(JSON.parse(l).listening)));
    loadDone = load(port, total, w.routes);
  } else {
    child.stdout.resume();
  }
  await sleep(WARM_S * 1000);
  if (V8_FIFO) profilerOnTime(child.pid);
  const windows = [];
  for (const slot of slots) {
    windows.push(...await Promise.all(slot.map((c) => sampleWindow(w, c, child.pid, dir))));
    await sleep(1000);
  }
  child.kill('SIGTERM'); // both the harness and the server exit cleanly on it (--cpu-prof then writes)
  await loadDone.catch(() => {});
  const how = await Promise.race([exited, sleep(180000).then(() => null)]);
  if (!how) { child.kill('SIGKILL'); throw new Error(`${w.name} did not exit`); }
  const file = fs.readdirSync(dir).find((f) => f.startsWith('CPU.') && f.endsWith('.cpuprofile')); // V8's own name for it
  if (!file) throw new Error(`${w.name} wrote no .cpuprofile (exit ${how.code ?? how.signal})`);
  if (!fs.existsSync(gcClock)) throw new Error(`${w.name} wrote no GC clock (${gcClock}; exit ${how.code ?? how.signal})`);
  return { pid: child.pid, profile: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), windows, gcs: JSON.parse(fs.readFileSync(gcClock, 'utf8')) };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

// The summary: per workload, a column per Node line and sampler, the ratio with --v8-self and
// v8walk's default ("self / default"; one of them when only one was run), each against V8's self
// time (its samples weighted by the time to the next, as DevTools computes self time) and, in
// brackets, against its sample counts. --markdown: as docs/accuracy.md's table.
function summary(results, { markdown = false } = {}) {
  const cols = [];
  for (const r of results) if (!r.overran && !cols.some((c) => c.node === r.node && c.tool === r.tool && c.hz === r.hz)) cols.push({ node: r.node, tool: r.tool, hz: r.hz });
  const rates = new Set(cols.map((c) => c.hz));
  const head = (c) => `${markdown ? `Node ${c.node.replace(/^v(\d+).*/, '$1')}` : c.node} ${c.tool === 'bpf' ? 'eBPF' : c.tool}${rates.size > 1 ? ` ${c.hz}` : ''}`;
  const cell = (w, c) => {
    const pick = (self) => results.find((r) => r.workload === w && r.node === c.node && r.tool === c.tool && r.hz === c.hz && r.v8self === self && !r.idle && !r.overran);
    const fig = (r) => `${r.ratioByV8Time.toFixed(2)} (${r.ratio.toFixed(2)})`;
    return [pick(true), pick(false)].filter(Boolean).map(fig).join(' / ') || '—';
  };
  const workloads = [...new Set(results.map((r) => r.workload))];
  const modes = [...new Set(results.map((r) => r.v8self))].sort((a, b) => b - a).map((v) => (v ? '--v8-self' : 'default')).join(' / ');
  if (markdown) {
    console.log(`| program | ${cols.map(head).join(' | ')} |\n|---|${cols.map(() => '---').join('|')}|`);
    for (const w of workloads) console.log(`| ${w} | ${cols.map((c) => cell(w, c)).join(' | ')} |`);
    return;
  }
  console.log(`\nratio to perfect@n against V8's self time (against its sample counts), ${modes}:`);
  console.log('workload'.padEnd(11) + cols.map((c) => head(c).padStart(28)).join(''));
  for (const w of workloads) console.log(w.padEnd(11) + cols.map((c) => cell(w, c).padStart(28)).join(''));
}

async function main() {
  // the summary of the last run again (build/bench/oracle.json), as a markdown table
  if (process.argv.includes('--markdown')) return summary(JSON.parse(fs.readFileSync(OUT, 'utf8')).results, { markdown: true });
  const workloads = chosen(process.argv);
  // a slot per rate and attribution: its samplers sample the window at once
  const slots = [];
  for (const hz of RATES) for (const v8self of V8_SELF) for (const idle of IDLE) {
    const slot = SAMPLERS.filter((tool) => !idle || tool === 'ptrace').map((tool) => ({ tool, hz, v8self, idle }));
    if (slot.length) slots.push(slot);
  }
  const started = Date.now();
  const results = [];
  const versions = [];
  for (const spec of NODE_LINES) {
    const node = nodeBinary(spec);
    const version = execFileSync(node, ['--version']).toString().trim();
    versions.push(version);
    console.log(`same-run oracle: node ${version}, V8's --cpu-prof against v8walk on the same process, ${WINDOW_S} s windows ` +
      `(${slots.map((sl) => sl.map(label).join(' + ')).join(', ')}); ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)} at start; V8's sampler thread ${V8_FIFO ? 'at SCHED_FIFO' : 'left to the scheduler'}`);
    console.log(`${'workload'.padEnd(10)}${'sampler'.padEnd(14)}${'v8walk n'.padStart(9)}${'V8 n'.padStart(8)}${'overlap'.padStart(9)}${'perfect@n'.padStart(11)}${'ratio'.padStart(7)}${'both'.padStart(6)}${'by time'.padStart(8)}${'GC: v8walk'.padStart(11)}${'V8'.padStart(6)}${'clock'.padStart(7)}${'clk ratio'.padStart(10)}${'both'.padStart(6)}${'V8 native'.padStart(10)}  worst functions, GC by the clock (v8walk vs V8)`);
    for (const w of workloads) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `v8walk-oracle-${w.name}-`));
      try {
        const r = await oracleRun(w, node, slots, dir);
        for (const win of r.windows) {
          if (win.overran) {
            console.log(`${w.name.padEnd(10)}${label(win).padEnd(14)}  — v8walk did not end within 30 s of its --duration (stopped; no profile)`);
            results.push({ node: version, workload: w.name, tool: win.tool, hz: win.hz, v8self: win.v8self, overran: true, v8walkSummary: win.summary });
            continue;
          }
          const v8 = profileShares(r.profile, win.startUs, win.endUs);
          const ours = profileShares(win.profile);
          const cmp = compareProfiles(ours, v8);
          // against V8's self time instead (its samples weighted by the time to the next): wall
          // time, GC included where V8's sampler thread starved (bench/oracle_compare.js)
          const v8ByTime = profileShares(r.profile, win.startUs, win.endUs, { byTime: true });
          const byTime = compareProfiles(ours, v8ByTime);
          // against V8's profile with its GC bucket from the process's own clock of its
          // collections (bench/real/lib/gc_clock.js), as a share of the window's busy time (V8's
          // (idle) left out)
          const busyUs = (win.endUs - win.startUs) * (v8ByTime.n + v8ByTime.leftOut ? v8ByTime.n / (v8ByTime.n + v8ByTime.leftOut) : 1);
          const gc = { ours: shareOf(ours, GC), v8: shareOf(v8, GC), clock: busyUs > 0 ? Math.min(1, gcClockUs(r.gcs, win.startUs, win.endUs) / busyUs) : 0 };
          const byClock = compareProfiles(ours, withGcShare(v8, gc.clock));
          const worst = byClock.functions.filter((f) => f.key !== GC).slice(0, 3).map((f) => `${f.name} ${pct(f.ours)} vs ${pct(f.v8)}`).join('; ');
          console.log(`${w.name.padEnd(10)}${label(win).padEnd(14)}${String(ours.samples).padStart(9)}${String(v8.samples).padStart(8)}` +
            `${cmp.overlap.toFixed(3).padStart(9)}${cmp.perfect.toFixed(3).padStart(11)}${cmp.ratio.toFixed(2).padStart(7)}${cmp.ratioBoth.toFixed(2).padStart(6)}${byTime.ratio.toFixed(2).padStart(8)}` +
            `${pct(gc.ours).padStart(11)}${pct(gc.v8).padStart(6)}${pct(gc.clock).padStart(7)}${byClock.ratio.toFixed(2).padStart(10)}${byClock.ratioBoth.toFixed(2).padStart(6)}${pct(v8.nativeShare).padStart(10)}  ${worst}`);
          results.push({ node: version, workload: w.name, tool: win.tool, hz: win.hz, v8self: win.v8self, idle: win.idle, windowUs: [win.startUs, win.endUs], v8walkSummary: win.summary,
            v8walkSamples: ours.samples, v8Samples: v8.samples, v8NativeShare: v8.nativeShare, overlap: cmp.overlap, perfect: cmp.perfect, ratio: cmp.ratio,
            perfectBoth: cmp.perfectBoth, ratioBoth: cmp.ratioBoth,
            ratioByV8Time: byTime.ratio, gcShares: gc, ratioGcClock: byClock.ratio, ratioBothGcClock: byClock.ratioBoth, functions: cmp.functions.slice(0, 40) });
        }
      } finally {
        if (KEEP) fs.cpSync(dir, path.join(KEEP, version, w.name), { recursive: true });
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  summary(results);
  console.log(`\n${workloads.length} workloads on ${versions.join(', ')} in ${((Date.now() - started) / 60000).toFixed(1)} min; load ${os.loadavg()[0].toFixed(2)} at the end`);
  console.log('\noverlap: Σ min of the two self-time shares per function (script + the line and column V8 gives it); perfect@n: what a perfect ' +
    'sampler taking v8walk\'s number of samples scores against V8\'s distribution; ratio = overlap ÷ perfect@n (1: as close to V8 as the sample count allows). ' +
    'both: overlap ÷ what a perfect sampler of n scores against a perfect profiler of V8\'s m samples (V8\'s profile is a finite draw too; ' +
    'at 999 Hz v8walk takes as many samples as V8 and V8\'s own noise weighs as much as a perfect sampler\'s, which perfect@n leaves out). ' +

    'by time: the ratio against V8\'s self time instead of its sample counts (each sample weighing the time to its next, as DevTools computes it): ' +
    'V8\'s sampler thread starves while the collector\'s threads hold the CPUs, so its counts under-charge GC against the wall clock; v8walk samples ' +
    'running threads, threads waiting for a CPU and a main thread asleep inside a collection, as the wall clock passes. ' +
    'GC: the share of the window\'s samples in "(garbage collector)" for v8walk and V8, and by the process\'s own clock (the time inside the collections ' +
    'it reports through perf_hooks, prologue to epilogue on the main thread, ÷ the time V8 did not find it idle); clk ratio / both: the ratio and both ' +
    'against V8\'s profile with its GC share replaced by the clock\'s (V8\'s other functions scaled to the rest). ' +
    'V8 native: the share of V8\'s samples in builtins and native callbacks, charged here to their JS caller on both sides.');
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ nodes: versions, windowS: WINDOW_S, results }, null, 1));
  console.log(`written: ${path.relative(process.cwd(), OUT)}`);
}

// (exits when done: the load generator of a server workload may still be retrying its dead server)
if (require.main === module) main().then(() => process.exit(0), (e) => { console.error(`oracle: ${e.stack || e.message}`); process.exit(1); });
