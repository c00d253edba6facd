// oracle_pairs.js — where the same-run oracle's two profiles disagree, sample by sample: every
// sample of v8walk's .cpuprofile is paired with V8's sample (`node --cpu-prof`, same process)
// nearest in time (both profiles' timestamps are CLOCK_MONOTONIC µs), within --within µs (default
// 150: V8 samples every ~1 ms, so a pair is two looks at the same moment, not at the same
// instruction), and each pair is charged as bench/oracle_compare.js charges it. Prints how many
// pairs agree, then the disagreements grouped by what v8walk and V8 charged, each with the
// innermost frames of both stacks: the class of a difference (a frame one side leaves out, a
// function one side charges to its caller) is read from them.
//   node bench/oracle_pairs.js V8.cpuprofile V8WALK.cpuprofile [--within US] [--top N] [--frames N]
'use strict';
const fs = require('node:fs');
const { chargedKeys } = require('./oracle_compare');

// [{t, key, stack: [innermost first: 'name url:line:col']}] of a .cpuprofile's samples
function timedSamples(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const keyOf = chargedKeys(profile);
  const frameText = (cf) => `${cf.functionName || '(anonymous)'}${cf.url ? ` ${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}:${cf.columnNumber + 1}` : ''}`;
  const stacks = new Map();
  const stackOf = (id) => {
    if (!stacks.has(id)) {
      const s = [];
      for (let k = id; k !== undefined; k = parent.get(k)) s.push(frameText(byId.get(k).callFrame));
      stacks.set(id, s);
    }
    return stacks.get(id);
  };
  const out = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    out.push({ t, key: keyOf.get(profile.samples[i]), id: profile.samples[i], stack: stackOf(profile.samples[i]) });
  }
  return out.sort((a, b) => a.t - b.t);
}

// the sample of sorted list `list` nearest to time t, or null when none is within `within` µs
function nearest(list, t, within) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid].t < t) lo = mid + 1; else hi = mid; }
  let best = null;
  for (const j of [lo - 1, lo]) if (j >= 0 && j < list.length && Math.abs(list[j].t - t) <= within && (!best || Math.abs(list[j].t - t) < Math.abs(best.t - t))) best = list[j];
  return best;
}

// {pairs, agree, groups: [{ours, v8, count, examples: [{ours: stack, v8: stack}]}] by count}
function pairSamples(v8Profile, ourProfile, { within = 150, left = new Set(['(idle)', '(root)']) } = {}) {
  const v8 = timedSamples(v8Profile), ours = timedSamples(ourProfile);
  const groups = new Map();
  let pairs = 0, agree = 0;
  for (const s of ours) {
    if (left.has(s.key)) continue;
    const o = nearest(v8, s.t, within);
    if (!o || left.has(o.key)) continue;
    pairs++;
    if (o.key === s.key) { agree++; continue; }
    const g = `${s.key}\u0000${o.key}`;
    if (!groups.has(g)) groups.set(g, { ours: s.key, v8: o.key, count: 0, examples: [] });
    const e = groups.get(g);
    e.count++;
    if (e.examples.length < 3) e.examples.push({ ours: s.stack, v8: o.stack });
  }
  return { pairs, agree, groups: [...groups.values()].sort((a, b) => b.count - a.count) };
}

function main() {
  const args = process.argv.slice(2);
  const opt = (name, d) => { const i = args.indexOf(name); return i >= 0 ? Number(args.splice(i, 2)[1]) : d; };
  const within = opt('--within', 150), top = opt('--top', 15), frames = opt('--frames', 5);
  if (args.length !== 2) {
    process.stderr.write('usage: node bench/oracle_pairs.js V8.cpuprofile V8WALK.cpuprofile [--within US] [--top N] [--frames N]\n');
    process.exit(2);
  }
  const [v8, ours] = args.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  const r = pairSamples(v8, ours, { within });
  console.log(`${r.pairs} pairs within ${within} µs; charged alike: ${r.agree} (${(100 * r.agree / Math.max(1, r.pairs)).toFixed(1)} %)`);
  const short = (k) => k.replace(/^.*\//, '');
  for (const g of r.groups.slice(0, top)) {
    console.log(`\n${g.count}× v8walk ${short(g.ours)}  ≠  V8 ${short(g.v8)}`);
    for (const e of g.examples) {
      console.log(`   v8walk: ${e.ours.slice(0, frames).join(' ← ')}`);
      console.log(`   V8:     ${e.v8.slice(0, frames).join(' ← ')}`);
    }
  }
}

if (require.main === module) main();
module.exports = { pairSamples, timedSamples };
