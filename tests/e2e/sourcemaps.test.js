// sourcemaps.test.js — source maps against ground truth: TypeScript compiled by tsc (map files
// and inline maps) and an esbuild bundle (minified: names come back from the map's "names"),
// built from fixtures/sourcemaps/src by its build.sh with the pinned compilers. Each fixture turns
// Node's own source map support on from inside (no flag), records its Error.stack at the innermost
// call site and then spins at that same call site; v8walk's --dump, a sampled profile and --core
// of a gcore must name every JS frame as Error.stack does (original file, line, column, name).
// A missing and a corrupt map: the frames stay at their generated position (as in Error.stack)
// and the summary says why.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const { parseStack } = require('../../fixtures/lib/hold');
// the 1-based line of `function NAME(` (exported or not) in a source file
const defLine = (file, name) => fs.readFileSync(file, 'utf8').split('\n')
  .findIndex((l) => new RegExp(`^(export )?function ${name}\\(`).test(l)) + 1;
const corekit = require('./corekit');

const DIR = path.join(h.FIXTURES, 'sourcemaps');
const RUN = path.join(DIR, 'run.js');

test.before(() => {
  const r = spawnSync(path.join(DIR, 'build.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.strictEqual(r.status, 0, `fixtures/sourcemaps/build.sh failed (it needs npm and the npm registry):\n${r.stdout}${r.stderr}`);
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-sourcemaps-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const isJs = (f) => f.kind === 'js' || f.kind === 'inlined' || f.kind === 'async';

// Error.stack's JS frames (builtins such as "Array.map (<anonymous>)" are not JS frames in a dump)
// below the innermost one (spinHere, which records the truth on another column than it spins on).
function truthFrames(truth) {
  return parseStack(truth).filter((t) => !(t.file === '<anonymous>' && t.line === null)).slice(1)
    .map((t) => ({ name: t.name === null || t.name === '<anonymous>' ? '(anonymous)' : t.name, file: t.file, line: t.line, col: t.col }));
}

function oursFrames(dump, pid) {
  const th = dump.threads.find((x) => x.tid === pid);
  assert.ok(th, `thread ${pid} in the dump`);
  // builtins called as functions (Array.map): "<anonymous>" without a position in Error.stack
  const js = th.frames.filter((f) => isJs(f) && f.file !== null);
  const i = js.findIndex((f) => /(^|\.)spinHere$/.test(f.name));
  assert.ok(i >= 0, `spinHere among the main thread's frames: ${JSON.stringify(js.map((f) => f.name))}`);
  return js.slice(i + 1);
}

// Every truth frame against ours, in order; returns {compared, exact, known}; fails on any
// difference, except one that is not about source maps: the name of a node:internal function V8
// names from a computed property (Node 22+: "Object..js" for Module._extensions['.js']), which
// v8walk spells differently (positions.test.js is about names).
function compare(label, truth, ours) {
  const rows = truth.map((t, k) => {
    const o = ours[k];
    const got = o && { name: o.name, file: o.file, line: o.line, col: o.column };
    const ok = !!got && JSON.stringify(got) === JSON.stringify(t);
    const known = !ok && !!got && t.file.startsWith('node:') &&
      JSON.stringify({ ...got, name: t.name }) === JSON.stringify(t);
    return { t, got, ok, known };
  });
  const exact = rows.filter((r) => r.ok).length;
  const known = rows.filter((r) => r.known).length;
  const report = rows.map((r) => `${r.ok ? 'ok  ' : r.known ? 'KNOWN node:internal name' : 'DIFF'} truth ${JSON.stringify(r.t)}${r.ok ? '' : ` ours ${JSON.stringify(r.got)}`}`).join('\n');
  assert.strictEqual(exact + known, truth.length, `${label}: ${exact} of ${truth.length} frames exact\n${report}`);
  assert.strictEqual(ours.length, truth.length, `${label}: as many JS frames as Error.stack`);
  const mapped = rows.filter((r) => r.ok && !r.t.file.startsWith('node:') && /\.ts$/.test(r.t.file)).length;
  assert.ok(mapped >= 9 || label === 'damaged maps', `${label}: ${mapped} frames at TypeScript positions`);
  return { compared: truth.length, exact, known };
}

async function start(t, script) {
  const release = path.join(tmp, `release-${path.basename(path.dirname(script))}-${Date.now()}`);
  const fx = await h.startScript(RUN, { args: [script, release] });
  t.after(() => { fs.writeFileSync(release, ''); fx.stop(); });
  fx.release = release;
  return fx;
}

async function dumpJson(fx, extra = []) {
  const r = await h.runV8walk(['--pid', String(fx.pid), '--dump', '--json', ...extra]);
  assert.strictEqual(r.code, 0, r.stderr);
  return { dump: JSON.parse(r.stdout), stderr: r.stderr };
}

// A copy of a compiled variant, so that a map can be removed or damaged.
function copyVariant(variant, name) {
  const to = path.join(tmp, name);
  fs.cpSync(path.join(DIR, 'out', variant), to, { recursive: true });
  return to;
}

const VARIANTS = [
  { name: 'tsc sourceMap', script: path.join(DIR, 'out/map/app.js'), maps: 2 },
  { name: 'tsc inlineSourceMap', script: path.join(DIR, 'out/inline/app.js'), maps: 2 },
  { name: 'esbuild bundle (minified)', script: path.join(DIR, 'out/bundle/app.js'), maps: 1 },
];

for (const v of VARIANTS) {
  // dumps and cores have one form: the ptrace pass only
  h.modeTest('ptrace', `--dump of ${v.name}: every JS frame at Error.stack's original position and name`, async (t) => {
    const fx = await start(t, v.script);
    const truth = truthFrames(fx.ready.truth);
    assert.ok(truth.some((f) => f.file.endsWith('/src/handler.ts')), `the truth is source-mapped:\n${fx.ready.truth}`);
    const { dump, stderr } = await dumpJson(fx);
    const ours = oursFrames(dump, fx.pid);
    const res = compare(v.name, truth, ours);
    t.diagnostic(`${v.name}: ${res.exact} of ${res.compared} frames exact` +
      (res.known ? ` (${res.known} node:internal names spelled differently)` : ''));
    assert.match(stderr, new RegExp(`source maps: ${v.maps} of ${v.maps} scripts with a sourceMappingURL had their map loaded .*; 0 failed`));
    // the generated position is kept, and is where the frame is without source maps
    const off = await dumpJson(fx, ['--no-source-maps']);
    assert.doesNotMatch(off.stderr, /source map/, '--no-source-maps: no source map work at all');
    const plain = oursFrames(off.dump, fx.pid);
    assert.ok(plain.every((f) => !f.generated && !/\.ts$/.test(f.file)), '--no-source-maps: generated positions');
    assert.strictEqual(plain.length, ours.length);
    let mapped = 0;
    ours.forEach((o, k) => {
      if (!o.generated) {
        assert.deepStrictEqual([o.file, o.line, o.column], [plain[k].file, plain[k].line, plain[k].column]);
        return;
      }
      mapped++;
      assert.deepStrictEqual(o.generated, { file: plain[k].file, line: plain[k].line, column: plain[k].column });
      assert.match(o.generated.file, /\/out\/(map|inline|bundle)\/(app|handler)\.js$/);
    });
    assert.ok(mapped >= 8, `${mapped} frames mapped`);
    assert.strictEqual(h.tracerPid(fx.pid), 0, 'detached');
    assert.ok(!h.threadStates(fx.pid).some((st) => st === 't' || st === 'T'), 'no thread left stopped');
  });

  test(`sampled profile of ${v.name}: original files and lines, --function by original function`, async (t) => {
    const fx = await start(t, v.script);
    const truth = truthFrames(fx.ready.truth);
    for (const extra of [[], ['--function']]) {
      const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--raw', ...extra]);
      assert.strictEqual(r.code, 0, r.stderr);
      assert.match(r.stderr, /source maps: \d+ of \d+ scripts/);
      const stacks = h.parseFolded(r.stdout);
      // leaf → root JS frames of each sample, below spinHere
      // (node:internal names as in compare(): not about source maps)
      const key = (name, file, line) => (file.startsWith('node:') ? `${file}:${line}` : `${name} (${file}:${line})`);
      const want = truth.map((f) => key(f.name, f.file, f.line));
      let exact = 0, total = 0;
      for (const s of stacks) {
        const js = s.frames.map(h.parseJsFrame).filter((f) => f && f.file).reverse();
        const i = js.findIndex((f) => /(^|\.)spinHere$/.test(f.name));
        if (i < 0) continue;
        total += s.count;
        const got = js.slice(i + 1).map((f) => key(f.name, f.file, f.line));
        if (extra.length === 0 && JSON.stringify(got) === JSON.stringify(want)) exact += s.count;
        // --function: a frame is its function, named as the function (not the call site:
        // `Object.<anonymous>` is the function `(anonymous)`), or as the source map names it
        const ownName = (n) => n.replace(/^(new |async )/, '').replace(/ \[as .*\]$/, '').replace(/^.*\.<anonymous>$/, '(anonymous)');
        const sameFunction = (g, f) => [f.name, ownName(f.name)].some((n) => g.startsWith(key(n, f.file, '').slice(0, -1)));
        if (extra.length && got.length === want.length && got.every((g, k) => sameFunction(g, truth[k]))) exact += s.count;
      }
      assert.ok(total > 0, `samples in spinHere:\n${r.stdout}`);
      if (extra.length) { // --function: the original definition lines
        const src = (f) => path.join(DIR, 'src', f);
        for (const [name, file] of [['scaleItem', 'handler.ts'], ['computeTotals', 'handler.ts'], ['serve', 'app.ts'], ['main', 'app.ts']])
          assert.ok(r.stdout.includes(`;${name} (${src(file)}:${defLine(src(file), name)})_[j];`), `${name} at its definition in ${file}:\n${r.stdout}`);
      }
      assert.ok(exact >= total * 0.9, `${extra.join(' ') || 'lines'}: ${exact} of ${total} samples in spinHere with the truth's frames\n${r.stdout}`);
    }
    // the call tree names the same frames
    const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--text', '--min-percent', '0']);
    assert.strictEqual(r.code, 0, r.stderr);
    for (const f of truth.filter((x) => !x.file.startsWith('node:')))
      assert.ok(r.stdout.includes(` ${f.name} (${f.file}:${f.line})\n`), `${f.name} (${f.file}:${f.line}) in the tree:\n${r.stdout}`);
  });
}

h.modeTest('ptrace', 'a missing and a corrupt map: frames at their generated position, the summary says why', async (t) => {
  const dir = copyVariant('map', 'damaged');
  fs.rmSync(path.join(dir, 'handler.js.map'));
  fs.writeFileSync(path.join(dir, 'app.js.map'), '{"version": 3, "sources": ["../src/app.ts"], "mappings": "AAAA,');
  const fx = await start(t, path.join(dir, 'app.js'));
  const truth = truthFrames(fx.ready.truth);
  assert.ok(truth.some((f) => f.file === path.join(dir, 'handler.js')), `Node fell back too:\n${fx.ready.truth}`);
  const { dump, stderr } = await dumpJson(fx);
  compare('damaged maps', truth, oursFrames(dump, fx.pid));
  assert.match(stderr, /source maps: 0 of 2 scripts .*; 2 failed \(1 missing, 0 unreadable, 1 malformed, 0 over the memory budget\)/);
  assert.match(stderr, new RegExp(`source map not used: ${dir}/handler\\.js\\.map: no such file`));
  assert.match(stderr, new RegExp(`source map not used: ${dir}/app\\.js\\.map: `));
  // each failure said once, however many samples hit the script
  const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--raw']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stderr.split('\n').filter((l) => l.includes('handler.js.map')).length, 1, r.stderr);
});

h.modeTest('ptrace', '--core of a gcore of the bundle: the original positions', async (t) => {
  const fx = await start(t, path.join(DIR, 'out/bundle/app.js'));
  const truth = truthFrames(fx.ready.truth);
  const core = corekit.gcore(fx.pid, tmp);
  t.after(() => fs.rmSync(core, { force: true }));
  const r = await h.runV8walk(['--core', core, '--json']);
  assert.ok(r.code === 0 || r.code === 3, r.stderr);
  const res = compare('core', truth, oursFrames(JSON.parse(r.stdout), fx.pid));
  t.diagnostic(`core: ${res.exact} of ${res.compared} frames exact` +
    (res.known ? ` (${res.known} node:internal names spelled differently)` : ''));
  assert.match(r.stderr, /source maps: 1 of 1 scripts/);
});

// Hostile maps cost their script its mapping, never a hang: a FIFO, a symlink, a map nested
// 100000 deep, index maps nested past the limit, an inline map that is not base64 JSON.
h.modeTest('ptrace', 'hostile maps: refused with their reason, quickly, the frames at their generated position', async (t) => {
  const dir = path.join(tmp, 'hostile');
  fs.mkdirSync(dir);
  const lib = path.join(h.FIXTURES, 'lib');
  const files = {
    'fifo.js': { map: 'fifo.map', next: 'link.js' },
    'link.js': { map: 'link.map', next: 'deep.js' },
    'deep.js': { map: 'deep.map', next: 'sections.js' },
    'sections.js': { map: 'sections.map', next: 'inline.js' },
    'inline.js': { map: 'data:application/json;base64,!!!!not-json', next: null },
  };
  for (const [name, { map, next }] of Object.entries(files)) {
    const call = next ? `require('./${next}').f()` : `(() => { const c = require(${JSON.stringify(path.join(lib, 'control.js'))}); c.ready({}); while (!require('fs').existsSync(${JSON.stringify(path.join(dir, 'release'))})) {} })()`;
    fs.writeFileSync(path.join(dir, name), `exports.f = function f() {\n  return ${call};\n};\n//# sourceMappingURL=${map}\n`);
  }
  spawnSync('mkfifo', [path.join(dir, 'fifo.map')]);
  fs.writeFileSync(path.join(dir, 'real.map'), '{"version":3,"sources":["x.ts"],"names":[],"mappings":"AAAA"}');
  fs.symlinkSync(path.join(dir, 'real.map'), path.join(dir, 'link.map'));
  fs.writeFileSync(path.join(dir, 'deep.map'), `{"version":3,"x":${'['.repeat(100000)}${']'.repeat(100000)},"sources":[],"mappings":""}`);
  let nested = '{"version":3,"sources":[],"mappings":""}';
  for (let i = 0; i < 10; i++) nested = `{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":${nested}}]}`;
  fs.writeFileSync(path.join(dir, 'sections.map'), nested);
  fs.writeFileSync(path.join(dir, 'main.js'), "require('./fifo.js').f();\n");
  const fx = await h.startScript(path.join(dir, 'main.js'));
  t.after(() => { fs.writeFileSync(path.join(dir, 'release'), ''); fx.stop(); });
  const started = Date.now();
  const { dump, stderr } = await dumpJson(fx);
  assert.ok(Date.now() - started < 30000, 'no hang');
  const main = dump.threads.find((x) => x.tid === fx.pid);
  const js = main.frames.filter(isJs);
  const shown = main.frames.map((f) => `${f.kind} ${f.name} ${f.file}:${f.line}${f.generated ? ' (mapped)' : ''}`).join('\n');
  for (const name of Object.keys(files))
    assert.ok(js.some((f) => f.file === path.join(dir, name) && !f.generated), `${name} at its generated position in:\n${shown}\n${stderr}`);
  assert.match(stderr, /source maps: 0 of 5 scripts .*; 5 failed \(0 missing, 2 unreadable, 3 malformed/);
  assert.match(stderr, /fifo\.map: it is a FIFO, not a regular file/);
  assert.match(stderr, /link\.map: it is a symbolic link/);
  assert.match(stderr, /deep\.map: JSON nested too deeply/);
  assert.match(stderr, /sections\.map: index maps nested too deeply/);
  assert.match(stderr, /inline\.js: /);
  assert.strictEqual(h.tracerPid(fx.pid), 0);
});
