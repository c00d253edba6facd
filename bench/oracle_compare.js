// oracle_compare.js — the arithmetic of the same-run oracle (bench/oracle.js): per-function self-time
// shares of the main thread from a V8 .cpuprofile cut to a time window and from v8walk's folded
// `--raw --function` output, and their overlap against what a perfect sampler would score.
// Identity of a function: its script (file:// stripped) and its 1-based definition line.
// Charged alike on both sides: self time goes to the innermost JS function that has a script;
// builtins and native callbacks (V8: nodes without a url; v8walk: JS frames without a file, e.g.
// `Array.push`, and native frames) are charged to it, except that regular-expression code is one
// bucket "(regexp)" (V8: "RegExp: …" nodes; v8walk: <IrregexpFrame>) and GC one bucket. V8's
// native callbacks are counted apart (nativeShare) so that what this folding hides is seen.
'use strict';

const REGEXP = '(regexp)';
const GC = '(garbage collector)';
const PROGRAM = '(program)';
const V8_LEFT_OUT = new Set(['(idle)', '(root)']);
const GC_FRAME = /Heap::|Scavenger|MarkCompact|MinorMarkSweep|GarbageCollect|ConcurrentMarking|Sweeper::|IncrementalMarking/;
const IDLE_FRAME = /^(uv__io_poll|epoll_wait|epoll_pwait)/;
const JS_FRAME = /^(.*?)(?: \((.*):(\d+)\))?_\[[ji]\]$/;

const script = (url) => url.replace(/^file:\/\//, '');

// {n, counts: Map key → samples, names: Map key → display name} of V8's samples in [startUs, endUs].
function v8Shares(profile, startUs, endUs) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children || []) parent.set(c, node.id);
  const keyOf = new Map();
  const native = new Set();
  const names = new Map();
  const ownKey = (cf) => {
    if (cf.functionName.startsWith('(') && !cf.url) return cf.functionName; // (program), (garbage collector), (idle), (root)
    if (!cf.url && cf.functionName.startsWith('RegExp: ')) return REGEXP;
    if (!cf.url) return null; // a builtin or native callback: charged to its caller
    return `${script(cf.url)}:${cf.lineNumber + 1}`;
  };
  for (const node of profile.nodes) {
    let id = node.id, key = ownKey(node.callFrame);
    if (key === null) native.add(node.id);
    while (key === null && parent.has(id)) { id = parent.get(id); key = ownKey(byId.get(id).callFrame); }
    if (key === null) key = PROGRAM;
    keyOf.set(node.id, key);
    if (!names.has(key)) names.set(key, byId.get(id).callFrame.functionName || '(anonymous)');
  }
  const counts = new Map();
  let n = 0, nativeSamples = 0, t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < startUs || t > endUs) continue;
    const key = keyOf.get(profile.samples[i]);
    if (V8_LEFT_OUT.has(key)) continue;
    counts.set(key, (counts.get(key) || 0) + 1);
    n++;
    if (native.has(profile.samples[i])) nativeSamples++;
  }
  return { n, counts, names, nativeShare: n ? nativeSamples / n : 0 };
}

// The same from v8walk's folded stacks: the main thread's (tid = PID) samples only.
function v8walkShares(folded, pid) {
  const main = `main (${pid})`;
  const counts = new Map();
  const names = new Map();
  let n = 0;
  for (const line of folded.split('\n')) {
    const sp = line.lastIndexOf(' ');
    if (sp < 0) continue;
    const count = Number(line.slice(sp + 1));
    const frames = line.slice(0, sp).split(';');
    if (frames[1] !== main || !Number.isFinite(count)) continue;
    let key = null, name = null, js = -1;
    for (let i = frames.length - 1; i >= 2 && js < 0; i--) {
      const m = JS_FRAME.exec(frames[i]);
      if (!m || m[2] === undefined) continue; // not JS, or a builtin / native callback
      js = i;
      name = m[1];
      key = `${script(m[2])}:${m[3]}`;
    }
    const above = frames.slice(js < 0 ? 2 : js + 1);
    if (above.some((f) => GC_FRAME.test(f))) key = GC;
    else if (above.includes('<IrregexpFrame>')) key = REGEXP;
    else if (js < 0 && frames.some((f) => IDLE_FRAME.test(f))) continue; // --idle: the event loop waiting, V8's (idle)
    else if (js < 0) key = PROGRAM;
    counts.set(key, (counts.get(key) || 0) + count);
    if (name && !names.has(key)) names.set(key, name);
    n += count;
  }
  return { n, counts, names };
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

// Mean overlap of n samples drawn from distribution p (Map key → share) with p itself.
function perfectAt(p, n, draws = 200) {
  if (!n) return 0;
  const keys = [...p.keys()];
  const cum = [];
  let c = 0;
  for (const k of keys) { c += p.get(k); cum.push(c); }
  const r = rng(13);
  let total = 0;
  const hits = new Float64Array(keys.length);
  for (let d = 0; d < draws; d++) {
    hits.fill(0);
    for (let i = 0; i < n; i++) {
      const x = r() * c;
      let lo = 0, hi = cum.length - 1;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (cum[mid] < x) lo = mid + 1; else hi = mid; }
      hits[lo]++;
    }
    let o = 0;
    for (let k = 0; k < keys.length; k++) o += Math.min(hits[k] / n, p.get(keys[k]));
    total += o;
  }
  return total / draws;
}

// {overlap, perfect, ratio, functions: [{key, name, ours, v8, diff}] by |diff|, largest first}.
function compareProfiles(ours, v8) {
  const share = (s) => new Map([...s.counts].map(([k, v]) => [k, s.n ? v / s.n : 0]));
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
  const perfect = perfectAt(b, ours.n);
  return { overlap, perfect, ratio: perfect ? overlap / perfect : 0, functions };
}

module.exports = { v8Shares, v8walkShares, compareProfiles, perfectAt };
