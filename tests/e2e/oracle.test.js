// oracle.test.js — the same-run oracle of bench/oracle.js, short: a real program (the TypeScript compiler
// from fixtures/sourcemaps' pinned package, compiling bench/real's generated project over and over:
// bench/real/workloads/tsc.js) runs under `node --cpu-prof`, v8walk samples the same process for a
// few seconds with --v8-self (V8's attribution rules) and writes a .cpuprofile, and the two profiles' per-function self-time shares of the
// main thread are compared over the same window (bench/oracle_compare.js: identity = script + the
// line and column V8 gives the function). The ratio to what a perfect sampler with v8walk's
// number of samples would score must stay above a floor that holds on a loaded machine; the full
// measurement (seventeen programs, Node 20 and 24, with and without --v8-self) is `make bench`'s
// bench/oracle.js.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const { profileShares, sampleSpanUs, profileKey, compareProfiles, shareOf } = require('../../bench/oracle_compare');

const TYPESCRIPT = path.join(h.ROOT, 'fixtures', 'sourcemaps', 'node_modules');
const WORKLOAD = path.join(h.ROOT, 'bench', 'real', 'workloads', 'tsc.js');
const WINDOW_S = 8;
// measured on a 2-CPU machine at load 4–5, 8 s windows, with --v8-self: ptrace 0.96–1.04 and eBPF
// 0.93–0.99 on the official builds (Node 16–26), 0.84–0.89 on Debian's libnode (its builtins have
// no names); once 0.64 in a make check run (Node 18, ptrace: 326 samples where ~790 were due, V8's
// window then still cut at v8walk's start and end, not at its first and last sample); without
// --v8-self (v8walk's own attribution) 0.44–0.86 at load 7–9. Functions charged to the wrong class
// (callers for callees, a builtin's caller lost) drop it far below.
const FLOOR = 0.6;
const MIN_SAMPLES = 50;
// v8walk's samples in JS functions that V8's profile has a node for, at the same url:line:column:
// measured 93.7–98.8 % (without --v8-self 82–89 %: the small helpers v8walk shows inlined at the
// pc and V8 charges to their host); a function placed at another position than V8 places it
// would bring this near 0
const MATCHED = 0.9;
// v8walk's "(program)" share above V8's: its nodes' native code without JS under it, which V8
// puts under "(program)" as well (0.0-0.1 % of v8walk's samples on Node 20 and 24, 0.6 % once on
// Node 16, against V8's 0.0 %: 5 samples of 799, not explained); the samples V8 gives up on, when
// they were charged here, put 1.6-2.1 % there on acorn
const PROGRAM_SLACK = 0.015;

const pct = (x) => `${(100 * x).toFixed(1)}%`;

test(`same-run oracle: v8walk's .cpuprofile of a TypeScript compile against V8's --cpu-prof (ratio to perfect ≥ ${FLOOR})`, async (t) => {
  assert.ok(fs.existsSync(path.join(TYPESCRIPT, 'typescript')), 'typescript is installed by `make fixtures` (fixtures/sourcemaps/build.sh)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-oracle-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fx = await h.startScript(WORKLOAD, {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], args: ['0'],
    env: { WORKLOAD_CONTROL: '1', NODE_PATH: TYPESCRIPT, TSC_FILES: '6' },
  });
  t.after(() => fx.stop());
  await h.sleep(2000); // past the first compiles: the hot functions optimized
  const ours = path.join(dir, 'v8walk.cpuprofile');
  // (charged as V8 charges: --v8-self; docs/accuracy.md)
  const r = await h.runV8walk(['--pid', String(fx.pid), '--rate', '99', '--duration', String(WINDOW_S), '--v8-self', '--no-source-maps', '-o', ours]);
  assert.strictEqual(r.code, 0, r.stderr);
  fx.child.stdin.write('exit\n'); // --cpu-prof writes V8's profile as the process exits
  await new Promise((resolve) => (fx.child.exitCode !== null ? resolve() : fx.child.once('exit', resolve)));
  const v8file = fs.readdirSync(dir).find((f) => f.startsWith('CPU.') && f.endsWith('.cpuprofile'));
  assert.ok(v8file, `node --cpu-prof wrote its profile (exit ${fx.child.exitCode ?? fx.child.signalCode})`);
  const mine = JSON.parse(fs.readFileSync(ours, 'utf8'));
  const theirs = JSON.parse(fs.readFileSync(path.join(dir, v8file), 'utf8'));
  // V8's samples between v8walk's first and last (attaching and the writer's end are no window
  // of v8walk's samples)
  const v8 = profileShares(theirs, ...sampleSpanUs(mine));
  const us = profileShares(mine);
  assert.ok(us.n >= MIN_SAMPLES, `v8walk's main-thread samples in ${WINDOW_S} s: ${us.n} (at least ${MIN_SAMPLES})`);
  assert.ok(v8.n >= us.n / 2, `V8's samples in the same window: ${v8.n}`);
  // the functions v8walk charged are functions V8's profile knows, at the same url:line:column
  // (any node of its whole run: a flat profile's tail is not sampled by both in one window)
  const v8Functions = new Set(theirs.nodes.filter((n) => n.callFrame.url).map((n) => profileKey(n.callFrame)));
  const js = [...us.counts].filter(([k]) => k.includes('/'));
  const inJs = js.reduce((a, [, n]) => a + n, 0);
  const known = js.filter(([k]) => v8Functions.has(k)).reduce((a, [, n]) => a + n, 0);
  const missing = js.filter(([k]) => !v8Functions.has(k)).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, n]) => `${k} (${n})`);
  const cmp = compareProfiles(us, v8);
  const worst = cmp.functions.slice(0, 8).map((f) => `  ${f.name}: v8walk ${pct(f.ours)}, V8 ${pct(f.v8)}`).join('\n');
  const figures = `${h.MODE}: ${us.n} samples (V8 ${v8.n}); overlap ${cmp.overlap.toFixed(3)}, perfect@n ${cmp.perfect.toFixed(3)}, ratio ${cmp.ratio.toFixed(2)} (against a perfect pair of n and V8's m: ${cmp.ratioBoth.toFixed(2)}); ` +
    `${inJs ? (100 * known / inJs).toFixed(1) : 0}% of the samples in JS functions at a function V8's profile has; ` +
    `"(program)" ${pct(shareOf(us, '(program)'))} (V8 ${pct(shareOf(v8, '(program)'))})`;
  t.diagnostic(figures);
  assert.ok(cmp.ratio >= FLOOR, `${figures}; the functions that differ most:\n${worst}`);
  assert.ok(inJs > 0 && known >= MATCHED * inJs, `${known} of v8walk's ${inJs} samples in JS functions at a url:line:column V8's profile has; not: ${missing.join(', ')}`);
  // a sample whose pc is where a frame is set up or torn down has no time in V8's profile (its
  // "(program)" node's hitCount counts it, its samples do not): --v8-self leaves it out too, and
  // says how many it left out. Charged to "(program)" instead, it put 0.3-1.1 % there on this
  // program (V8's samples: 0.0 %), 1.6-2.1 % on acorn (V8: 0.1 %): where V8 gives up on few, as
  // on Node 16-22, only the second check below can tell, and only where enough are due (Node 24)
  const program = (s) => shareOf(s, '(program)');
  assert.ok(program(us) <= program(v8) + PROGRAM_SLACK,
    `"(program)": v8walk ${pct(program(us))}, V8 ${pct(program(v8))} (at most ${pct(PROGRAM_SLACK)} more)`);
  // how often V8 gave up on a sample over its whole run, and what that makes due in v8walk's: when
  // a dozen or more are due, none left out is a rule not applied (a Poisson count of 12 is 0 once
  // in 160,000)
  const ids = programIds(theirs);
  const hits = theirs.nodes.reduce((a, n) => a + (n.hitCount || 0), 0);
  const spoiled = theirs.nodes.filter((n) => ids.has(n.id)).reduce((a, n) => a + (n.hitCount || 0), 0) -
    theirs.samples.filter((id) => ids.has(id)).length;
  const left = Number((/; (\d+) left out as V8's profiler leaves them/.exec(r.stderr) || [0, 0])[1]);
  const due = hits ? (spoiled / hits) * (us.samples + left) : 0;
  t.diagnostic(`V8 recorded no time for ${spoiled} of its ${hits} samples (a frame's setup or teardown); v8walk left out ${left} (about ${due.toFixed(1)} due)`);
  assert.ok(due < 12 || left > 0, `V8 gave up on ${spoiled} of ${hits} samples, about ${due.toFixed(1)} due in v8walk's window; its summary says it left none out:\n${r.stderr}`);
});

// V8's SIGPROF wakes a main thread asleep outside its event loop's wait (a lock, a condition,
// Atomics.wait) and samples it where it sleeps; v8walk counts such a sleep only inside a
// collection, unless --v8-self. One process under --cpu-prof, a window with --v8-self and one
// without; the truth of how long it slept is its own clock around the wait.
test('same-run oracle: a main thread asleep in Atomics.wait is sampled there with --v8-self, as V8 samples it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-oracle-sleep-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fx = await h.startFixture('sleep_half.js', { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  t.after(() => fx.stop());
  const windows = [];
  for (const self of [true, false]) {
    const out = path.join(dir, `v8walk-${self}.cpuprofile`);
    const before = await fx.ping();
    const r = await h.runV8walk(['--pid', String(fx.pid), '--rate', '99', '--duration', '3', '--no-source-maps',
      ...(self ? ['--v8-self'] : []), '-o', out]);
    const after = await fx.ping();
    assert.strictEqual(r.code, 0, r.stderr);
    assert.ok(before && after, fx.describe());
    const asleep = (after.asleepMs - before.asleepMs) / (after.nowMs - before.nowMs);
    windows.push({ self, r, asleep, profile: JSON.parse(fs.readFileSync(out, 'utf8')) });
  }
  fx.child.stdin.write('exit\n');
  await new Promise((resolve) => (fx.child.exitCode !== null ? resolve() : fx.child.once('exit', resolve)));
  const v8file = fs.readdirSync(dir).find((f) => f.startsWith('CPU.') && f.endsWith('.cpuprofile'));
  assert.ok(v8file, 'node --cpu-prof wrote its profile');
  const theirs = JSON.parse(fs.readFileSync(path.join(dir, v8file), 'utf8'));
  const node = theirs.nodes.find((n) => n.callFrame.functionName === 'sleeper' && n.callFrame.url.endsWith(fx.ready.file));
  assert.ok(node, 'sleeper is in V8\'s profile');
  const key = profileKey(node.callFrame);
  for (const w of windows) {
    const v8 = profileShares(theirs, ...sampleSpanUs(w.profile), { byTime: true });
    const us = profileShares(w.profile);
    // the samples the sleep is due: its share of the window's periods (not of v8walk's samples,
    // which also count what ran)
    const seconds = (w.profile.endTime - w.profile.startTime) / 1e6;
    const got = us.counts.get(key) || 0, due = w.asleep * 99 * seconds;
    const awake = us.n - got, awakeDue = (1 - w.asleep) * 99 * seconds;
    const figures = `${h.MODE}${w.self ? ' --v8-self' : ''}: sleeper ${pct(shareOf(us, key))} of ${us.n} samples ` +
      `(${got}, ${due.toFixed(0)} due to its sleep; the rest ${awake}, ${awakeDue.toFixed(0)} due), V8 ` +
      `${pct(shareOf(v8, key))} of its time; the process inside sleeper ${pct(w.asleep)} of the window`;
    t.diagnostic(figures);
    // measured (idle, and with both CPUs busy elsewhere): the process 21-50 % of the window inside
    // sleeper; V8 23-71 % of its time there (its sampler thread takes CPU from the busy half); with
    // --v8-self v8walk's samples there 140-156 where its sleep made 149-150 due, without it 0-6 % of
    // v8walk's samples (the call into the wait and back)
    assert.ok(w.asleep >= 0.1, `the fixture sleeps: ${figures}`);
    // the busy half gets its share too: this fixture's cycle, 5 ms of work and a 5 ms timed sleep
    // (10.1 ms with V8's profiler in it), locks onto a lattice of ticks at 99 Hz (a timed sleep
    // due within its timer slack of a tick is woken by it), which then sees one phase of the cycle
    // only — measured with eBPF's per-CPU timers at a fixed period: 1 and 298 where 150 were due
    assert.ok(awake >= 0.7 * awakeDue - 10 && awake <= 1.3 * awakeDue + 10, `the busy half: ${figures}\n${w.r.stderr}`);
    assert.ok(shareOf(v8, key) >= 0.5 * w.asleep, `V8 samples the sleeping thread: ${figures}`);
    if (w.self) {
      assert.ok(got >= 0.5 * due && got <= 1.5 * due + 10, `${figures}\n${w.r.stderr}`);
      assert.match(w.r.stderr, /of a main thread asleep elsewhere \(--v8-self/);
    } else {
      assert.doesNotMatch(w.r.stderr, /asleep elsewhere/, 'without --v8-self no sleep outside a collection is counted');
    }
  }
});

// the ids of a .cpuprofile's "(program)" nodes
const programIds = (p) => new Set(p.nodes.filter((n) => n.callFrame.functionName === '(program)' && !n.callFrame.url).map((n) => n.id));
