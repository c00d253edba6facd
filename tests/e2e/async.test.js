// async.test.js — --async: sampled stacks continue through the async functions awaiting them,
// checked against the process's own Error.stack taken at the same points (fixtures/
// async_chains.js: every shape of chain V8 follows, each held spinning at its hot point while it is
// sampled), placed where the queue's frames were; the same for a server's handlers under load
// (fixtures/async_server.js); with --no-async the queue's frames stay. Every format carries the
// async frames and the programs that read them still do. --pending: the server's parked requests
// counted by v8walk as the server counts them, live and in cores (gcore and the kernel's).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const k = require('./corekit');
const c = require('./consumers');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-async-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const QUEUE = /RunMicrotasks|PromiseFulfillReactionJob|PromiseRejectReactionJob|PerformCheckpoint/;

// A folded frame's async name and line: "async mid (/f.js:10)_[a]" → {name, file, line}; a frame
// standing for a chain that could not be read → {marker}; null for other frames.
function asyncFrame(f) {
  if (/^\[async callers /.test(f)) return { marker: f };
  const js = h.parseJsFrame(f);
  return js && js.tag === 'a' ? { name: js.name, file: js.file || null, line: js.line || null } : null;
}

// One sample's async frames, innermost first, and where they sit.
function chainOf(frames) {
  const at = [];
  frames.forEach((f, i) => { if (asyncFrame(f)) at.push(i); });
  return { frames: at.map((i) => asyncFrame(frames[i])).reverse(), first: at[0], last: at[at.length - 1], n: at.length };
}

const key = (f) => (f.marker ? f.marker : `${f.name} @ ${f.file ? path.basename(f.file) : '-'}:${f.line ?? '-'}`);

async function sampleFolded(pid, name, args = []) {
  const out = path.join(tmp, `${name}.folded`);
  const r = await h.runV8walk(['--pid', String(pid), '--rate', '199', '--duration', '0.6', '-o', out, ...args]);
  assert.strictEqual(r.code, 0, r.stderr);
  return { stacks: h.parseFolded(fs.readFileSync(out, 'utf8')), stderr: r.stderr };
}

test('[async] sampled await chains are the async frames of Error.stack at every hot point, in place of the microtask queue', async (t) => {
  const release = path.join(tmp, 'release-chains');
  const fx = await h.startFixture('async_chains.js', { args: ['--release', release] });
  t.after(() => fx.stop());
  const failures = [];
  const seen = [];
  for (;;) {
    const msg = await fx.next((m) => m.scenario || m.done, 120000);
    if (msg.done) break;
    // (on a loaded machine a short run may catch few samples: sampled again, up to four times)
    let hot = [], stderr = '';
    for (let run = 0; run < 4 && hot.reduce((a, s) => a + s.count, 0) < 10; run++) {
      const r = await sampleFolded(fx.pid, `${msg.scenario}-${run}`);
      stderr = r.stderr;
      hot = hot.concat(r.stacks.filter((s) => s.frames.some((f) => /(^|\.)spinHere /.test(f))));
    }
    fs.writeFileSync(release, '');
    const want = msg.truth.map((f) => key({ name: f.name, file: f.file, line: f.line }));
    seen.push(`${msg.scenario}: ${hot.reduce((a, s) => a + s.count, 0)} samples`);
    if (hot.length === 0) {
      failures.push(`${msg.scenario}: no sample at the hot point\n${stderr}`);
      continue;
    }
    for (const s of hot) {
      const ch = chainOf(s.frames);
      const got = ch.frames.map(key);
      const where = s.frames.slice(2).join(';');
      if (JSON.stringify(got) !== JSON.stringify(want))
        failures.push(`${msg.scenario}: async frames\n  ours  ${got.join(' | ')}\n  truth ${want.join(' | ')}\n  ${where}`);
      const queue = s.frames.filter((f) => QUEUE.test(f));
      if (queue.length)
        failures.push(`${msg.scenario}: the microtask queue's frames are still there: ${queue.join(', ')}\n  ${where}`);
      if (ch.n && (ch.last - ch.first + 1 !== ch.n || !/_\[j\]$/.test(s.frames[ch.last + 1] || '')))
        failures.push(`${msg.scenario}: the async frames are not one run right under the resumed function\n  ${where}`);
      // run from processTicksAndRejections: it stays, right below the awaiting functions
      if (msg.scenario === 'after-nexttick' && ch.n && !/processTicksAndRejections/.test(s.frames[ch.first - 1]))
        failures.push(`${msg.scenario}: processTicksAndRejections is not the logical caller\n  ${where}`);
    }
  }
  t.diagnostic(seen.join('; '));
  assert.ok(seen.length >= 20, `hot points reached: ${seen.length}`);
  assert.deepStrictEqual(failures, []);
});

test('[async] --no-async: the microtask queue\'s frames under the resumed function, no async frame', async (t) => {
  const release = path.join(tmp, 'release-noasync');
  const fx = await h.startFixture('async_chains.js', { args: ['--release', release, '--only', 'await-chain'] });
  t.after(() => fx.stop());
  const msg = await fx.next((m) => m.scenario, 60000);
  const { stacks } = await sampleFolded(fx.pid, 'noasync', ['--no-async']);
  fs.writeFileSync(release, '');
  const hot = stacks.filter((s) => s.frames.some((f) => /(^|\.)spinHere /.test(f)));
  assert.ok(hot.length > 0, 'samples at the hot point');
  assert.strictEqual(msg.truth.length, 3, 'the truth has three async frames');
  for (const s of hot) {
    assert.strictEqual(chainOf(s.frames).n, 0, s.frames.join(';'));
    assert.ok(s.frames.some((f) => /MicrotaskQueue::RunMicrotasks/.test(f)), `the queue's frames: ${s.frames.join(';')}`);
  }
});

test('[async] a server under load: the handlers awaiting the resumed work, as its Error.stack says', async (t) => {
  const fx = await h.startFixture('async_server.js', { args: ['load', '6'] });
  t.after(() => fx.stop());
  const truth = {};
  for (const caller of ['priceItems', 'handleOrder', 'handleQuote'])
    truth[caller] = (await fx.next((m) => m.truth && m.truth.caller === caller, 60000)).truth.frames;
  assert.deepStrictEqual(truth.priceItems, ['handleOrder'], 'the fixture\'s own truth');
  const out = path.join(tmp, 'server.folded');
  const r = await h.runV8walk(['--pid', String(fx.pid), '--rate', '499', '--duration', '3', '-o', out]);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(fs.readFileSync(out, 'utf8'));
  let exact = 0, marked = 0, priced = 0;
  const wrong = [];
  for (const s of stacks) {
    const i = s.frames.findIndex((f) => /^crunch /.test(f));
    if (i < 1) continue;
    const caller = h.parseJsFrame(s.frames[i - 1]);
    if (!caller || !truth[caller.name]) continue;
    const ch = chainOf(s.frames);
    if (ch.frames.length === 1 && ch.frames[0].marker) marked += s.count;
    else if (JSON.stringify(ch.frames.map((f) => f.name.replace(/^async /, ''))) === JSON.stringify(truth[caller.name])) {
      exact += s.count;
      if (caller.name === 'priceItems') priced += s.count; /* under async handleOrder */
    }
    else wrong.push(`${caller.name}: ${s.frames.slice(2).join(';')}`);
  }
  t.diagnostic(`${exact} samples with the chain (${priced} of priceItems under async handleOrder), ${marked} with a chain that ran on before it was read; ${/v8walk: async: .*/.exec(r.stderr)}`);
  assert.deepStrictEqual(wrong, [], 'no sample has another chain than the truth');
  assert.ok(priced >= 10, `samples of priceItems with its chain: ${priced} (and ${marked} marked)`);
});

h.modeTest('ptrace', '[async] a core of a process at a hot point: its main thread continues through the same async frames', async (t) => {
  const release = path.join(tmp, 'release-core');
  const fx = await h.startFixture('async_chains.js', { args: ['--release', release, '--only', 'promise-all-index1'] });
  t.after(() => fx.stop());
  const msg = await fx.next((m) => m.scenario, 60000);
  const dir = k.tempDir(t, 'async-gcore');
  const core = k.gcore(fx.pid, dir);
  fs.writeFileSync(release, '');
  const r = await k.coreJson(['--core', core]);
  assert.strictEqual(r.code, 0, r.stderr);
  const main = r.dump.threads.find((x) => x.tid === fx.pid);
  const got = main.frames.filter((f) => f.kind === 'async')
    .map((f) => key({ name: f.name, file: f.file, line: f.line }));
  assert.deepStrictEqual(got, msg.truth.map((f) => key({ name: f.name, file: f.file, line: f.line })));
  assert.ok(!main.frames.some((f) => QUEUE.test(f.name)), 'no microtask queue frame');
});

// the groups of a --pending report, as the fixture states its own
function groupsOf(report) {
  return report.groups.map((g) => ({
    count: g.count,
    frames: g.frames.map((f) => ({ name: f.name, line: f.line, col: f.column })),
  })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
const sorted = (groups) => [...groups].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

function checkPending(report, parked, fx, what) {
  assert.strictEqual(report.suspended, parked.suspended, `${what}: suspended async functions`);
  assert.deepStrictEqual(groupsOf(report), sorted(parked.groups), `${what}: what they wait on`);
  for (const g of report.groups) for (const f of g.frames) if (f.file) assert.strictEqual(f.file, fx.file);
}

h.modeTest('ptrace', '[pending] --dump --pending: every parked request, where it waits and who awaits it, as the server counts them; then a gcore of it', async (t) => {
  const fx = await h.startFixture('async_server.js', { args: ['park', '40'] });
  t.after(() => fx.stop());
  const parked = await fx.next((m) => m.parked, 60000);
  const r = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--pending', '--json']);
  assert.strictEqual(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout);
  checkPending(rep, parked, fx.ready, 'live');
  assert.match(r.stderr, /the process was not stopped/);
  assert.ok(await fx.ping(), 'the server still answers');
  t.diagnostic(/v8walk: pending: .*/.exec(r.stderr)[0]);
  // text: the same groups, counted
  const text = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--pending']);
  assert.strictEqual(text.code, 0, text.stderr);
  for (const g of parked.groups)
    assert.match(text.stdout, new RegExp(`\\n${g.count} waiting in:\\n    ${g.frames[0].name} \\(`));
  // a core of it: the same
  const dir = k.tempDir(t, 'pending-gcore');
  const core = k.gcore(fx.pid, dir);
  const cr = await h.runV8walk(['--core', core, '--pending', '--json']);
  assert.strictEqual(cr.code, 0, cr.stderr);
  checkPending(JSON.parse(cr.stdout), parked, fx.ready, 'gcore');
});

h.modeTest('ptrace', '[pending] a kernel core of a server that died with its requests parked', async (t) => {
  const dir = k.tempDir(t, 'pending-abort');
  const script = path.join(h.FIXTURES, 'async_server.js');
  const child = spawn('sh', ['-c', 'ulimit -c unlimited; exec "$0" "$@"', h.NODE, script, 'park', '31', '--abort'],
    { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...h.NODE_ENV } });
  let stdout = '';
  child.stdout.on('data', (d) => { stdout += d; });
  const done = await new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal }); });
  });
  const parked = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{"parked"')) || 'null');
  assert.ok(parked, `the server reported its parked requests (${done.code ?? done.signal})`);
  const core = path.join(dir, 'core');
  assert.ok(fs.existsSync(core), `the kernel wrote a core (${done.signal})`);
  const r = await h.runV8walk(['--core', core, '--pending', '--json']);
  assert.strictEqual(r.code, 0, r.stderr);
  checkPending(JSON.parse(r.stdout), parked, { file: script }, 'kernel core');
});

h.modeTest('ptrace', '[async] every format carries the async frames and the programs that read them take them', async (t) => {
  const release = path.join(tmp, 'release-formats');
  const fx = await h.startFixture('async_chains.js', { args: ['--release', release, '--only', 'await-chain'] });
  t.after(() => fx.stop());
  await fx.next((m) => m.scenario, 60000);
  const files = {};
  const args = ['--pid', String(fx.pid), '--rate', '199', '--duration', '1', '-q'];
  for (const [name, ext] of Object.entries({ folded: 'folded', pprof: 'pb.gz', cpuprofile: 'cpuprofile', speedscope: 'speedscope.json', svg: 'svg' })) {
    files[name] = path.join(tmp, `async.${ext}`);
    args.push('-o', files[name]);
  }
  // (on a loaded machine a run may catch few samples: taken again, up to three times)
  let stacks = [], withMid = 0;
  for (let run = 0; run < 3 && withMid <= 20; run++) {
    const r = await h.runV8walk(args);
    assert.strictEqual(r.code, 0, r.stderr);
    stacks = h.parseFolded(fs.readFileSync(files.folded, 'utf8'));
    withMid = stacks.filter((s) => s.frames.some((f) => /^async mid \(.*\)_\[a\]$/.test(f))).reduce((a, s) => a + s.count, 0);
  }
  fs.writeFileSync(release, '');
  assert.ok(withMid > 20, `samples under async mid: ${withMid}`);
  // pprof: a function of its own, with its samples
  const top = c.pprofTop(files.pprof);
  assert.strictEqual(top.byName['async mid']?.cum, withMid, 'go tool pprof: async mid\'s cumulative samples');
  assert.strictEqual(top.byName['async mid'].flat, 0, 'never a leaf');
  // cpuprofile: nodes named as the function awaiting, at its script and definition
  const prof = JSON.parse(fs.readFileSync(files.cpuprofile, 'utf8'));
  const node = prof.nodes.find((n) => n.callFrame.functionName === 'async mid');
  assert.ok(node, 'a cpuprofile node for async mid');
  assert.strictEqual(node.callFrame.url, fx.ready.file);
  // speedscope: its own frame, apart from mid's own
  const doc = JSON.parse(fs.readFileSync(files.speedscope, 'utf8'));
  assert.ok(doc.shared.frames.some((f) => f.name === 'async mid' && f.file === fx.ready.file), 'speedscope frame async mid');
  // SVG: drawn in its own colour (violet: blue above red above green)
  const svg = fs.readFileSync(files.svg, 'utf8');
  const m = /<title>async mid \([^<]*\) \(\d+ samples?, [\d.]+%\)<\/title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/.exec(svg);
  assert.ok(m, 'the SVG draws async mid');
  const [red, green, blue] = m.slice(1).map(Number);
  assert.ok(blue > red && red > green, `violet: rgb(${red},${green},${blue})`);
  if (process.env.V8WALK_BROWSER_TESTS === '0') return;
  // (skipped with its reason on a machine without chromium: the emulated arm64 one)
  await t.test('speedscope and chromium show them', { skip: process.env.V8WALK_BROWSER_SKIP || false }, (t) => browserShows(t, files));
});

async function browserShows(t, files) {
  const b = await c.browser();
  t.after(() => b.close());
  for (const [file, shot] of [[files.speedscope, 'async-speedscope-json.png'], [files.cpuprofile, 'async-speedscope-cpuprofile.png']]) {
    const s = await c.speedscopeImport(b, file, shot);
    assert.deepStrictEqual(s.problems, [], `speedscope imports ${path.basename(file)}`);
    assert.ok(s.table['async mid'], `async mid in speedscope's table:\n${s.text.slice(0, 1500)}`);
  }
  const p = await c.page(b);
  await p.goto(`file://${files.svg}`);
  const titles = await p.$$eval('g.f title', (ts) => ts.map((x) => x.textContent));
  assert.deepStrictEqual(p.problems, []);
  assert.ok(titles.some((x) => /^async mid /.test(x)), 'chromium shows async mid');
  fs.mkdirSync(c.ARTEFACTS, { recursive: true });
  await p.screenshot({ path: path.join(c.ARTEFACTS, 'async-flamegraph.png') });
}
