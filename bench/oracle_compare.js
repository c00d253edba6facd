// oracle_compare.js — the arithmetic of the same-run oracle (bench/oracle.js, tests/e2e/oracle.test.js):
// per-function self-time shares of one thread from a .cpuprofile cut to a time window — V8's own
// (`node --cpu-prof`) and v8walk's (`-o FILE.cpuprofile`: the main thread, functions where V8
// places them) read by the same code — and their overlap against what a perfect sampler would
// score.
// Identity of a function: its script (file:// stripped) and V8's 1-based line and column of it (the
// column matters: minified code puts hundreds of functions on one line).
// Charged alike on both sides: self time goes to the innermost JS function that has a script;
// builtins and native callbacks (nodes without a url: V8's `push`, v8walk's `Array.push`,
// `Builtins_…` and native C++ frames) are charged to it, except that regular-expression code is one
// bucket "(regexp)" (V8: "RegExp: …" nodes; v8walk: <IrregexpFrame>), and a WebAssembly module's
// code one bucket per module, by its url (V8 names each of its functions, v8walk the module:
// "<wasm>" and the exported function's frame, in the module's url); "(garbage collector)" and
// "(program)" are buckets of their own, "(program)" holding too the native code that has no JS
// function under it (v8walk: node's event loop in C++, microtasks run in builtins; these fell into
// "(root)" and out of the comparison before), except in libuv's poll phase, which V8 counts as
// "(idle)" (below); "(idle)" and "(root)" are left out (v8walk samples running threads only). The share of samples charged through a node without a url is reported
// (nativeShare) so that what this folding hides is seen.
// Weighted by time on V8's side (byTime): a sample of V8's stands for the time until its next one,
// as DevTools computes a node's self time from the timestamps. V8's sampler thread is starved while
// the collector's threads hold the CPUs, so a sample in GC is followed by a longer interval
// (measured on acorn, Node 20, 2 CPUs: 2.0 ms after a GC sample, 1.15 ms after others; GC 37.7 % of
// the samples, 51.3 % of the time): counting V8's samples under-charges GC. v8walk's ticks are its
// own, one per period while the thread runs: counted.
'use strict';

const REGEXP = '(regexp)';
const PROGRAM = '(program)';
const GC = '(garbage collector)';
const IDLE = '(idle)';
const LEFT_OUT = new Set([IDLE, '(root)']);
// the nodes of no function (a C++ name may begin with a parenthesis too: "(anonymous namespace)::…")
const PSEUDO = new Set([PROGRAM, GC, IDLE, '(root)']);

// Code compiled by eval or new Function: V8 gives it no url (its script has no name) but a script
// id, a line and a column; v8walk names where it was evaluated, as Error.stack does ("eval at
// createFunctionContext (…/javascript-compiler.js:260:23), <anonymous>"). Both are known by the
// line and column in the evaluated source (every evaluated script is one bucket: their ids are
// each side's own).
const EVAL = '(eval)';
const isEval = (cf) => (cf.url ? cf.url.startsWith('eval at ') : cf.scriptId !== undefined && String(cf.scriptId) !== '0' && cf.lineNumber >= 0);
const script = (url) => url.replace(/^file:\/\//, '');
// a JS function's identity from its callFrame
const profileKey = (cf) => `${script(cf.url)}:${cf.lineNumber + 1}:${cf.columnNumber + 1}`;

// The span of a .cpuprofile's samples, [first, last] in CLOCK_MONOTONIC µs (startTime +
// timeDeltas), or its [startTime, endTime] when it has none: the window another clock is cut to.
function sampleSpanUs(profile) {
  let t = profile.startTime, first;
  for (const d of profile.timeDeltas) {
    t += d;
    first ??= t;
  }
  return first === undefined ? [profile.startTime, profile.endTime] : [first, t];
}

// The key each node of a .cpuprofile is charged to (Map node id → key), the nodes charged
// through a node without a url (a Set), and each key's display name (Map key → name).
function chargedNodes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children || []) parent.set(c, node.id);
  const keyOf = new Map();
  const native = new Set();
  const names = new Map();
  const ownKey = (cf) => {
    if (PSEUDO.has(cf.functionName) && !cf.url) return cf.functionName;
    if (!cf.url && (cf.functionName.startsWith('RegExp: ') || cf.functionName === '<IrregexpFrame>')) return REGEXP;
    if (cf.url && (cf.url.startsWith('wasm://') || cf.functionName === '<wasm>' || /^wasm-function\[\d+\]$/.test(cf.functionName)))
      return `(wasm) ${cf.url}`;
    if (isEval(cf)) return `${EVAL}:${cf.lineNumber + 1}:${cf.columnNumber + 1}`;
    if (!cf.url) return null; // a builtin or native callback: charged to its caller
    return profileKey(cf);
  };
  // node's poll phase (libuv's uv__io_poll: the epoll wait and the I/O callbacks' native code)
  // is "(idle)" to V8 under --cpu-prof, whose idle notifier calls SetIdle(true) in a prepare
  // handle and SetIdle(false) in a check handle: a sample there without JS is idle for V8
  // (measured, express server under load: V8 2.5 % (idle), 0.3 % (program); v8walk, which names
  // the native frames, 2.0 % outside JS in that phase)
  const inPollPhase = (id) => {
    for (let k = id; k !== undefined; k = parent.get(k)) if (byId.get(k).callFrame.functionName === 'uv__io_poll') return true;
    return false;
  };
  for (const node of profile.nodes) {
    let id = node.id, key = ownKey(node.callFrame);
    if (key === null) native.add(node.id);
    while (key === null && parent.has(id)) { id = parent.get(id); key = ownKey(byId.get(id).callFrame); }
    // native code with no JS function under it (v8walk: node's event loop in C++, a microtask
    // run in builtins; V8: the same, or a builtin named alone): "(program)", as V8 names it
    if (key === null || (key === '(root)' && id !== node.id)) key = inPollPhase(node.id) ? IDLE : PROGRAM;
    keyOf.set(node.id, key);
    if (!names.has(key)) names.set(key, key === PROGRAM ? PROGRAM : byId.get(id).callFrame.functionName || '(anonymous)');
  }
  return { keyOf, native, names };
}

// The key each node of a .cpuprofile is charged to: Map node id → key.
const chargedKeys = (profile) => chargedNodes(profile).keyOf;

// {n, samples, counts: Map key → weight, names: Map key → display name, nativeShare} of a
// .cpuprofile's samples in [startUs, endUs] (its startTime + timeDeltas: CLOCK_MONOTONIC µs on both
// sides). Each sample weighs 1 (n = samples), or with byTime the µs until the profile's next sample
// (the last one: until its endTime; n = their sum).
function profileShares(profile, startUs = -Infinity, endUs = Infinity, { byTime = false } = {}) {
  const { keyOf, native, names } = chargedNodes(profile);
  const counts = new Map();
  let n = 0, samples = 0, nativeWeight = 0, leftOut = 0, t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < startUs || t > endUs) continue;
    const key = keyOf.get(profile.samples[i]);
    const next = i + 1 < profile.samples.length ? profile.timeDeltas[i + 1] : Math.max(0, profile.endTime - t);
    const w = byTime ? Math.max(0, next) : 1;
    if (LEFT_OUT.has(key)) { leftOut += w; continue; }
    counts.set(key, (counts.get(key) || 0) + w);
    n += w;
    samples++;
    if (native.has(profile.samples[i])) nativeWeight += w;
  }
  return { n, samples, counts, names, nativeShare: n ? nativeWeight / n : 0, leftOut };
}

// The share of key in shares s (profileShares): its weight ÷ the window's.
const shareOf = (s, key) => (s.n ? (s.counts.get(key) || 0) / s.n : 0);

// µs of [startUs, endUs] inside the process's own garbage collections (bench/real/lib/gc_clock.js:
// [start µs, duration µs] per collection, CLOCK_MONOTONIC).
function gcClockUs(gcs, startUs, endUs) {
  let us = 0;
  for (const [s, d] of gcs) us += Math.max(0, Math.min(s + d, endUs) - Math.max(s, startUs));
  return us;
}

// V8's shares (profileShares) with the GC bucket set to gcShare and every other bucket scaled to
// the rest: V8's distribution among what is not GC, its GC from the process's own clock.
function withGcShare(v8, gcShare) {
  const g = shareOf(v8, GC);
  const scale = g < 1 ? (1 - gcShare) / (1 - g) : 0;
  const counts = new Map();
  for (const [k] of v8.counts) counts.set(k, k === GC ? 0 : shareOf(v8, k) * scale);
  counts.set(GC, gcShare);
  const names = new Map(v8.names);
  names.set(GC, GC);
  return { ...v8, n: 1, counts, names };
}

// A deterministic generator for the perfect sampler's draws.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Draws from distribution p (Map key → share) with the generator seeded `seed`: keys, and
// draw(hits, count), which fills hits (by key index) with count samples' counts.
function drawsFrom(p, seed) {
  const keys = [...p.keys()];
  const cum = [];
  let c = 0;
  for (const k of keys) { c += p.get(k); cum.push(c); }
  const r = rng(seed);
  const draw = (hits, count) => {
    hits.fill(0);
    for (let i = 0; i < count; i++) {
      const x = r() * c;
      let lo = 0, hi = cum.length - 1;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (cum[mid] < x) lo = mid + 1; else hi = mid; }
      hits[lo]++;
    }
  };
  return { keys, draw };
}

// Mean overlap of n samples drawn from distribution p (Map key → share) with p itself.
function perfectAt(p, n, draws = 200) {
  if (!n) return 0;
  const { keys, draw } = drawsFrom(p, 13);
  let total = 0;
  const hits = new Float64Array(keys.length);
  for (let d = 0; d < draws; d++) {
    draw(hits, n);
    let o = 0;
    for (let k = 0; k < keys.length; k++) o += Math.min(hits[k] / n, p.get(keys[k]));
    total += o;
  }
  return total / draws;
}

// Mean overlap of two independent draws from p, of n and m samples: what a perfect sampler taking
// n samples scores against a perfect profiler that took m (V8's own profile is a draw too: at 999
// Hz v8walk takes as many samples as V8, and V8's own noise is as large as a perfect sampler's).
// p is V8's observed distribution, whose tail is thinner than the true one (functions it never
// sampled are missing): two draws from it agree more than two from the truth would, so this errs
// on the high side and a ratio against it on the low side.
function perfectBoth(p, n, m, draws = 200) {
  if (!n || !m) return 0;
  const { keys, draw } = drawsFrom(p, 29);
  const a = new Float64Array(keys.length), b = new Float64Array(keys.length);
  let total = 0;
  for (let d = 0; d < draws; d++) {
    draw(a, n);
    draw(b, m);
    let o = 0;
    for (let k = 0; k < keys.length; k++) o += Math.min(a[k] / n, b[k] / m);
    total += o;
  }
  return total / draws;
}

// {overlap, perfect, ratio, perfectBoth, ratioBoth, functions: [{key, name, ours, v8, diff}] by
// |diff|, largest first}.
function compareProfiles(ours, v8) {
  const share = (s) => new Map([...s.counts.keys()].map((k) => [k, shareOf(s, k)]));
  const a = share(ours), b = share(v8);
  const keys = new Set([...a.keys(), ...b.keys()]);
  let overlap = 0;
  const functions = [];
  for (const k of keys) {
    const x = a.get(k) || 0, y = b.get(k) || 0;
    overlap += Math.min(x, y);
    const where = k.includes('/') ? ` (${k.slice(k.lastIndexOf('/') + 1)})` : '';
    const name = String(v8.names.get(k) || ours.names.get(k) || k).slice(0, 60);
    functions.push({ key: k, name: `${name}${where}`, ours: x, v8: y, diff: x - y });
  }
  functions.sort((p, q) => Math.abs(q.diff) - Math.abs(p.diff));
  const perfect = perfectAt(b, ours.samples);
  const both = perfectBoth(b, ours.samples, v8.samples);
  return { overlap, perfect, ratio: perfect ? overlap / perfect : 0, perfectBoth: both,
    ratioBoth: both ? overlap / both : 0, functions };
}

module.exports = { profileShares, chargedKeys, sampleSpanUs, profileKey, compareProfiles, perfectAt, perfectBoth, gcClockUs, withGcShare, shareOf, GC };
