// formats.test.js — every output format of one real run, read by the program its users read it
// with: pprof by `go tool pprof` (functions, inlined lines, totals), speedscope JSON and
// .cpuprofile by speedscope's own app in headless chromium (imported without error, the hot
// function with its share), the SVG flame graph in chromium (frames in the DOM with their widths,
// search, zoom; a screenshot kept in build/artefacts). One run writes all formats (-o repeated),
// so per-function totals of each must agree with its folded output, sample for sample.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const c = require('./consumers');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-formats-'));
const FORMATS = { folded: 'folded', pprof: 'pb.gz', cpuprofile: 'cpuprofile', speedscope: 'speedscope.json', svg: 'svg', tree: 'txt' };

// A JS function's name as both sides can be compared by: folded keeps V8's call-site name
// (`[new ][Type.]name[ [as alias]]`: `Immediate.spin`, `Function.executeUserEntryPoint [as
// runMain]`), the other formats the function's own name (`spin`; an inferred one may hold dots:
// `Module._compile`), so both are cut to what follows the last dot. Native names pass unchanged.
function fnKey(name) {
  if (/::|\(/.test(name) && !/^(\(anonymous\)|<anonymous>)$/.test(name)) return name;
  const n = name.replace(/^new /, '').replace(/ \[as [^\]]*\]$/, '');
  const last = n.slice(n.lastIndexOf('.') + 1);
  return !last || last === '<anonymous>' ? '(anonymous)' : last;
}

// the function a folded frame belongs to, by name, as the other formats name functions (cut by
// fnKey: applied to every name on both sides)
function functionName(frame) {
  const js = h.parseJsFrame(frame);
  return fnKey(js ? js.name || '(anonymous)' : frame.replace(/_\[k\]$/, ''));
}

// a writer's per-name figures with JS names cut as fnKey cuts them
function byFnKey(byName, add) {
  const out = {};
  for (const [name, v] of Object.entries(byName)) out[fnKey(name)] = out[fnKey(name)] ? add(out[fnKey(name)], v) : v;
  return out;
}

// folded stacks → per thread label and per function: samples where it is the leaf (self) and
// samples it is on the stack (total, once per sample)
function foldedTotals(stacks) {
  const self = {}, total = {}, threads = {};
  let all = 0;
  for (const s of stacks) {
    all += s.count;
    const thread = `${s.frames[1]} in ${s.frames[0]}`;
    threads[thread] = (threads[thread] || 0) + s.count;
    const fns = s.frames.slice(2).map(functionName);
    if (fns.length) self[fns[fns.length - 1]] = (self[fns[fns.length - 1]] || 0) + s.count;
    for (const f of new Set(fns)) total[f] = (total[f] || 0) + s.count;
  }
  return { self, total, threads, all };
}

// a C++ name without template arguments, parameter lists or anonymous namespaces (go tool pprof
// shows names shortened so); applied to both sides before comparing
function shortName(name) {
  let out = name.replace(/\(anonymous namespace\)::/g, '');
  for (const [open, close] of [['<', '>'], ['(', ')']]) {
    let depth = 0, kept = '';
    for (const ch of out) {
      if (ch === open) depth++;
      else if (ch === close && depth > 0) depth--;
      else if (depth === 0) kept += ch;
    }
    if (kept.trim()) out = kept;
  }
  // go tool pprof drops "(anonymous namespace)" and keeps its "::" (`v8::internal::::Invoke`)
  return out.replace(/::(::)+/g, '::').trim();
}

function byShortName(counts) {
  const out = {};
  for (const [name, n] of Object.entries(counts)) out[shortName(name)] = (out[shortName(name)] || 0) + n;
  return out;
}

// chromium-driven checks: in the ptrace pass, on the first node of a matrix run
// (scripts/run-e2e.sh sets V8WALK_BROWSER_TESTS=0 for the others); skipped with the reason
// V8WALK_BROWSER_SKIP gives on a machine without chromium (the emulated arm64 one:
// scripts/arm64-guest.sh)
function browserTest(name, fn) {
  if (process.env.V8WALK_BROWSER_TESTS === '0') return;
  const why = process.env.V8WALK_BROWSER_SKIP;
  h.modeTest('ptrace', name, why ? (t) => t.skip(why) : fn);
}

let runOnce;
// One run of v8walk on chain.js writing every format.
function run() {
  runOnce ??= (async () => {
    const fx = await h.startFixture('chain.js');
    const files = {};
    const args = ['--pid', String(fx.pid), '--duration', '3', '-q'];
    for (const [name, ext] of Object.entries(FORMATS)) {
      files[name] = path.join(tmp, `chain.${ext}`);
      args.push('-o', files[name]);
    }
    const r = await h.runV8walk(args);
    fx.stop();
    assert.strictEqual(r.code, 0, r.stderr);
    const stacks = h.parseFolded(fs.readFileSync(files.folded, 'utf8'));
    return { fx, files, stacks, folded: foldedTotals(stacks), truth: fx.ready };
  })();
  return runOnce;
}

// the folded totals of the main thread only
function mainThread(stacks, pid) {
  return foldedTotals(stacks.filter((s) => s.frames[1] === `main (${pid})`));
}

test('pprof: go tool pprof reads it; functions, inlined lines and totals agree with folded', async () => {
  const { files, folded, stacks } = await run();
  // 3 s at 99 Hz: ~300 samples; fewer on a loaded machine (eBPF sees on-CPU time only)
  assert.ok(folded.all >= 30, `samples: ${folded.all}`);
  const top = c.pprofTop(files.pprof);
  assert.strictEqual(top.total, folded.all, 'total samples');
  top.byName = byFnKey(top.byName, (a, b) => ({ flat: a.flat + b.flat, cum: a.cum + b.cum }));
  const flat = byShortName(Object.fromEntries(Object.entries(top.byName).map(([k, v]) => [k, v.flat])));
  // (V8's typed frames, `<InternalFrame>`, are left to the totals: their one-sample leaves did not
  // always show under that name in go tool pprof's listing — not understood yet)
  for (const [name, n] of Object.entries(byShortName(folded.self)))
    if (!/^<[^<>]*>$/.test(name)) assert.strictEqual(flat[name], n, `flat samples of ${name}`);
  for (const [name, n] of Object.entries(folded.total))
    if (shortName(name) === name && top.byName[name]) assert.strictEqual(top.byName[name].cum, n, `cumulative samples of ${name}`);
  for (const name of ['leaf', 'middle', 'outer'])
    assert.strictEqual(top.byName[name]?.cum, folded.total[name], `cumulative samples of ${name}`);
  assert.ok(top.byName.leaf.flat >= folded.all * 0.5, 'leaf is the hot function');
  // native code in Mappings of its modules, with their build-ids
  const raw = c.goPprof(['-raw'], files.pprof);
  const maps = (/\nMappings\n([\s\S]*?)(\n\n|$)/.exec(raw) || [])[1] || '';
  const nodeMap = maps.split('\n').find((l) => l.includes(` ${fs.realpathSync(h.NODE)} `) || /libnode\.so/.test(l));
  assert.ok(nodeMap, `node's own mapping in pprof:\n${maps}`);
  assert.match(nodeMap, / [0-9a-f]{16,} \[FN\]$/, 'with its build-id');
  // an inlined JS frame is a further Line of its caller's Location: "(inline)", then the caller
  const traces = c.goPprof(['-traces', '-lines', '-sample_index=samples'], files.pprof).split('\n').map((l) => l.trim());
  const inlined = stacks.filter((s) => s.frames.some((f) => h.parseJsFrame(f)?.tag === 'i'));
  const inlineLines = traces.filter((l) => / \(inline\)$/.test(l));
  assert.strictEqual(inlineLines.length > 0, inlined.length > 0, 'inlined frames in pprof exactly when folded has them');
  for (let i = 0; i < traces.length; i++) {
    if (!/ \(inline\)$/.test(traces[i])) continue;
    // (a name may hold a space: a constructor is `new Immediate`)
    const caller = /^(?:\d+\s+)?(\S.*) (\S+):(\d+)$/.exec(traces[i + 1].replace(/ \(inline\)$/, ''));
    assert.ok(caller, `the line after an inlined frame is its caller: ${traces[i + 1]}`);
  }
});

test('cpuprofile: the main thread as V8 writes it, totals agree with folded', async () => {
  const { files, stacks, truth, fx } = await run();
  const main = mainThread(stacks, fx.pid);
  const prof = JSON.parse(fs.readFileSync(files.cpuprofile, 'utf8'));
  assert.strictEqual(prof.nodes[0].callFrame.functionName, '(root)');
  assert.strictEqual(prof.samples.length, main.all, 'one sample per main-thread sample');
  assert.strictEqual(prof.timeDeltas.length, prof.samples.length);
  assert.strictEqual(prof.nodes.reduce((a, n) => a + n.hitCount, 0), main.all, 'hit counts');
  assert.ok(prof.timeDeltas.every((d) => d >= 0), 'samples in time order');
  const sum = prof.timeDeltas.reduce((a, d) => a + d, 0);
  assert.ok(sum <= prof.endTime - prof.startTime && sum >= (prof.endTime - prof.startTime) * 0.2,
    `samples spread over the run: ${sum} of ${prof.endTime - prof.startTime} µs`);
  const ids = new Set(prof.nodes.map((n) => n.id));
  assert.ok(prof.samples.every((id) => ids.has(id)));
  const selfByName = {};
  for (const n of prof.nodes) {
    const raw = n.callFrame.functionName || '(anonymous)';
    const name = n.callFrame.url ? fnKey(raw) : raw;
    selfByName[name] = (selfByName[name] || 0) + n.hitCount;
  }
  // JS functions exactly; the rest may be (idle) or (garbage collector), as V8 shows them
  const jsNames = new Set(stacks.flatMap((s) => s.frames.map(h.parseJsFrame).filter(Boolean).map((j) => fnKey(j.name || '(anonymous)'))));
  let otherFolded = 0, otherProfile = 0;
  for (const [name, n] of Object.entries(main.self)) {
    if (jsNames.has(name)) assert.strictEqual(selfByName[name], n, `self samples of ${name}`);
    else otherFolded += n;
  }
  for (const [name, n] of Object.entries(selfByName)) if (!jsNames.has(name)) otherProfile += n;
  assert.strictEqual(otherProfile, otherFolded, 'samples outside JavaScript');
  const leafNodes = prof.nodes.filter((n) => n.callFrame.functionName === 'leaf');
  assert.ok(leafNodes.length > 0);
  for (const n of leafNodes) {
    assert.strictEqual(n.callFrame.url, truth.file);
    assert.strictEqual(n.callFrame.lineNumber, truth.defLines.leaf - 1, '0-based definition line');
    const ticks = (n.positionTicks || []).reduce((a, t) => a + t.ticks, 0);
    assert.strictEqual(ticks, n.hitCount, 'every hit of leaf has its line');
    for (const t of n.positionTicks || [])
      // (a sample at the function's entry — its stack check — is at the function's own position)
      assert.ok(t.line >= truth.defLines.leaf && t.line < truth.defLines.middle, `1-based line ${t.line} in leaf's body`);
  }
});

test('speedscope JSON: one sampled profile per thread in time order, totals agree with folded', async () => {
  const { files, folded, truth } = await run();
  const doc = JSON.parse(fs.readFileSync(files.speedscope, 'utf8'));
  assert.strictEqual(doc.$schema, 'https://www.speedscope.app/file-format-schema.json');
  const byThread = Object.fromEntries(doc.profiles.map((p) => [p.name, p]));
  assert.deepStrictEqual(Object.keys(byThread).sort(), Object.keys(folded.threads).sort(), 'one profile per thread');
  const self = {};
  for (const p of doc.profiles) {
    assert.strictEqual(p.type, 'sampled');
    assert.strictEqual(p.samples.length, folded.threads[p.name], `samples of ${p.name}`);
    assert.strictEqual(p.weights.length, p.samples.length);
    for (const s of p.samples) if (s.length) {
      const name = fnKey(doc.shared.frames[s[s.length - 1]].name);
      self[name] = (self[name] || 0) + 1;
    }
  }
  for (const [name, n] of Object.entries(folded.self))
    assert.strictEqual(self[name], n, `self samples of ${name}`);
  const leaf = doc.shared.frames.filter((f) => f.name === 'leaf');
  assert.strictEqual(leaf.length, 1, 'a function is one frame');
  assert.strictEqual(leaf[0].file, truth.file);
  assert.strictEqual(leaf[0].line, truth.defLines.leaf);
});

// SVG frames → [{name, s, n, d, x, width}]
function svgFrames(text) {
  const out = [];
  const re = /<g class="f" data-s="(\d+)" data-n="(\d+)" data-d="(\d+)"><title>(.*?) \(\d+ samples?, [\d.]+%\)<\/title><rect x="([\d.]+)" y="\d+" width="([\d.]+)"/g;
  for (let m; (m = re.exec(text));)
    out.push({ name: m[4].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'), s: +m[1], n: +m[2], d: +m[3], x: +m[5], width: +m[6] });
  return out;
}

test('svg and tree: frame totals agree with folded', async () => {
  const { files, stacks, folded, fx } = await run();
  const frames = svgFrames(fs.readFileSync(files.svg, 'utf8'));
  assert.strictEqual(frames[0].name, 'all');
  assert.strictEqual(frames[0].n, folded.all);
  // per frame text: the folded samples whose stack holds it (at that depth: no recursion here)
  const want = {};
  for (const s of stacks)
    s.frames.forEach((f, d) => { const k = `${d}|${f.replace(/_\[[jik]\]$/, '')}`; want[k] = (want[k] || 0) + s.count; });
  const got = {};
  for (const f of frames) if (f.d > 0) got[`${f.d - 1}|${f.name}`] = (got[`${f.d - 1}|${f.name}`] || 0) + f.n;
  assert.deepStrictEqual(got, want, 'every folded frame is drawn with its samples');
  const tree = fs.readFileSync(files.tree, 'utf8').split('\n');
  assert.match(tree[0], /SAMPLES/);
  // the process's line: all samples
  assert.ok(tree[1].endsWith(`(${fx.pid})`), tree[1]);
  assert.strictEqual(Number(tree[1].trim().split(/\s+/)[0]), folded.all);
});

browserTest('speedscope imports the speedscope JSON and the .cpuprofile: the hot function with its share', async (t) => {
  const { files, stacks, fx } = await run();
  const main = mainThread(stacks, fx.pid);
  const b = await c.browser();
  t.after(() => b.close());
  for (const [file, shot] of [[files.speedscope, 'speedscope-json.png'], [files.cpuprofile, 'speedscope-cpuprofile.png']]) {
    const r = await c.speedscopeImport(b, file, shot);
    assert.deepStrictEqual(r.problems, [], `import of ${path.basename(file)}`);
    assert.ok(r.table.leaf, `leaf in speedscope's table:\n${r.text.slice(0, 2000)}`);
    // speedscope weighs a .cpuprofile's samples by time (timeDeltas), speedscope JSON by count
    let shares = [100 * main.self.leaf / main.all];
    if (file === files.cpuprofile) {
      // a sample weighs the time until the next one, or since the previous one (the two ways a
      // reader may take timeDeltas; with jittered intervals they differ by sampling noise)
      const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
      // (and speedscope may leave V8's pseudo-frames — "(idle)", "(program)", "(garbage
      // collector)" — out of the whole)
      const leafIds = new Set(prof.nodes.filter((n) => n.callFrame.functionName === 'leaf').map((n) => n.id));
      const pseudoIds = new Set(prof.nodes.filter((n) => /^\(.*\)$/.test(n.callFrame.functionName) && !n.callFrame.url).map((n) => n.id));
      shares = [[1, false], [0, false], [1, true], [0, true]].map(([shift, noPseudo]) => {
        let all = 0, leaf = 0;
        prof.samples.forEach((id, i) => {
          const w = prof.timeDeltas[i + shift] ?? 0;
          if (noPseudo && pseudoIds.has(id)) return;
          all += w;
          if (leafIds.has(id)) leaf += w;
        });
        return 100 * leaf / all;
      });
    }
    assert.ok(shares.some((share) => Math.abs(r.table.leaf.self - share) <= 1.5), `${path.basename(file)}: leaf's self share ${r.table.leaf.self}% in speedscope, ${shares.map((x) => x.toFixed(2)).join(' or ')}% expected`);
    assert.ok(r.table.middle && r.table.outer, 'its callers are there too');
  }
});

browserTest('the SVG in chromium: frames with their widths, search, zoom', async (t) => {
  const { files, stacks, folded } = await run();
  const b = await c.browser();
  t.after(() => b.close());
  const p = await c.page(b);
  await p.goto(`file://${files.svg}`);
  const frames = await p.evaluate(() => Array.from(document.querySelectorAll('g.f')).map((g) => ({
    name: g.querySelector('title').textContent, n: +g.dataset.n, width: +g.querySelector('rect').getAttribute('width'),
    x: +g.querySelector('rect').getAttribute('x'),
  })));
  assert.deepStrictEqual(p.problems, []);
  assert.ok(frames.length > 10);
  const full = frames[0].width;
  assert.ok(full > 1000, `the root spans the image: ${full}`);
  for (const f of frames) assert.ok(Math.abs(f.width - full * f.n / folded.all) < 0.05, `width of ${f.name}`);
  // search (the prompt answered "^leaf "): matched share = samples with leaf on the stack
  await p.evaluate(() => { window.prompt = () => '^leaf '; });
  await p.click('#search');
  const matched = await p.$eval('#matched', (e) => e.textContent);
  const withLeaf = stacks.filter((s) => s.frames.some((f) => /^leaf /.test(f))).reduce((a, s) => a + s.count, 0);
  assert.strictEqual(matched, `Matched: ${(100 * withLeaf / folded.all).toFixed(2)}%`);
  const magenta = await p.$$eval('g.f rect[fill="rgb(230,0,230)"]', (r) => r.length);
  assert.ok(magenta > 0, 'matching frames highlighted');
  // zoom into middle: leaf (inside it) widens, frames beside it disappear
  const before = await p.$$eval('g.f', (gs) => gs.filter((g) => /^leaf /.test(g.querySelector('title').textContent)).map((g) => +g.querySelector('rect').getAttribute('width')));
  await p.evaluate(() => {
    const g = Array.from(document.querySelectorAll('g.f')).filter((e) => /^middle /.test(e.querySelector('title').textContent))
      .sort((a, b) => b.dataset.n - a.dataset.n)[0];
    g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  const after = await p.$$eval('g.f', (gs) => gs.filter((g) => /^leaf /.test(g.querySelector('title').textContent) && !g.classList.contains('hide')).map((g) => +g.querySelector('rect').getAttribute('width')));
  assert.ok(Math.max(...after) > Math.max(...before) || Math.max(...before) > full * 0.98, `zoom widens leaf: ${Math.max(...before)} → ${Math.max(...after)}`);
  const hidden = await p.$$eval('g.f.hide', (g) => g.length);
  const reset = await p.$eval('#reset', (e) => e.classList.contains('hide'));
  assert.strictEqual(reset, false, 'Reset Zoom shows');
  fs.mkdirSync(c.ARTEFACTS, { recursive: true });
  await p.screenshot({ path: path.join(c.ARTEFACTS, 'flamegraph-zoomed.png') });
  await p.click('#reset');
  assert.strictEqual(await p.$$eval('g.f.hide', (g) => g.length), 0, `reset shows every frame again (${hidden} were hidden)`);
  await p.screenshot({ path: path.join(c.ARTEFACTS, 'flamegraph.png') });
});

test('formats: -o extension picks the format; an unknown one is an error listing the formats', async () => {
  const r = await h.runV8walk(['--pid', '1', '-o', path.join(tmp, 'x.unknown')]);
  assert.strictEqual(r.code, 2);
  assert.match(r.stderr, /tree, folded, svg, speedscope, cpuprofile, pprof/);
  const f = await h.runV8walk(['--pid', '1', '--format', 'nope']);
  assert.match(f.stderr, /--format is one of tree, folded, svg, speedscope, cpuprofile, pprof, not 'nope'/);
  const th = await h.runV8walk(['--pid', '1', '--thread', 'worker', '-o', path.join(tmp, 'x.svg')]);
  assert.strictEqual(th.code, 2);
  assert.match(th.stderr, /--thread picks the thread of a cpuprofile/);
});

test('formats on Ctrl-C with --function, on SIGTERM, and in launch mode at the program\'s exit', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const out = (ext) => path.join(tmp, `int.${ext}`);
  const v = h.startV8walk(['--pid', String(fx.pid), '--function', '-q', '-o', out('folded'), '-o', out('pb.gz'), '-o', out('cpuprofile'), '-o', out('svg'), '-o', out('speedscope.json')]);
  // sampling time from the attach: loading the eBPF program can take seconds on a busy machine
  assert.ok(await h.waitFor(() => h.attached(fx.pid, v.child.pid), 15000), `v8walk (${h.MODE}) attached`);
  await h.sleep(2500);
  v.child.kill('SIGINT');
  const r = await v.done;
  assert.strictEqual(r.code, 0, r.stderr);
  const folded = foldedTotals(h.parseFolded(fs.readFileSync(out('folded'), 'utf8')));
  assert.ok(folded.all >= 10, `samples before Ctrl-C: ${folded.all}\n${r.stderr}`);
  assert.strictEqual(c.pprofTop(out('pb.gz')).total, folded.all);
  assert.strictEqual(svgFrames(fs.readFileSync(out('svg'), 'utf8'))[0].n, folded.all);
  const ss = JSON.parse(fs.readFileSync(out('speedscope.json'), 'utf8'));
  assert.strictEqual(ss.profiles.reduce((a, p) => a + p.samples.length, 0), folded.all);
  const cp = JSON.parse(fs.readFileSync(out('cpuprofile'), 'utf8'));
  assert.ok(cp.samples.length > 0, 'main-thread samples in the cpuprofile');
  assert.ok(cp.nodes.every((n) => !n.positionTicks), '--function: no line ticks');
  // SIGTERM ends a run the same way
  const term = h.startV8walk(['--pid', String(fx.pid), '-q', '-o', out('term.folded'), '-o', out('term.svg'), '-o', out('term.pb.gz')]);
  assert.ok(await h.waitFor(() => h.attached(fx.pid, term.child.pid), 15000), `v8walk (${h.MODE}) attached`);
  await h.sleep(2000);
  term.child.kill('SIGTERM');
  const tr = await term.done;
  assert.strictEqual(tr.code, 0, tr.stderr);
  const tfold = foldedTotals(h.parseFolded(fs.readFileSync(out('term.folded'), 'utf8')));
  assert.ok(tfold.all >= 10, `samples before SIGTERM: ${tfold.all}`);
  assert.strictEqual(svgFrames(fs.readFileSync(out('term.svg'), 'utf8'))[0].n, tfold.all);
  assert.strictEqual(c.pprofTop(out('term.pb.gz')).total, tfold.all);
  const lf = await h.launchFixture('launched.js', { v8walkArgs: ['-q', '-o', path.join(tmp, 'launch.folded'), '-o', path.join(tmp, 'launch.pb.gz')] });
  t.after(() => lf.stop());
  await h.sleep(2500);
  lf.child.stdin.write('exit 0\n');
  const lr = await lf.done;
  assert.strictEqual(lr.code, 0, lr.stderr);
  const lfold = foldedTotals(h.parseFolded(fs.readFileSync(path.join(tmp, 'launch.folded'), 'utf8')));
  assert.ok(lfold.all >= 5, `samples of the launched program: ${lfold.all}\n${lr.stderr}`);
  assert.strictEqual(c.pprofTop(path.join(tmp, 'launch.pb.gz')).total, lfold.all);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
