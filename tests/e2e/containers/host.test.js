// host.test.js — v8walk on the host, node in a podman container: another Node line than the host's
// (22 in the container, at the same path as the host's node, so that reading the host's binary for
// the container's would show), the fixtures copied into the container only (their paths do not
// exist on the host), its own /tmp and pid namespace. In each sampler: names and lines as the
// process's own Error.stack gives them, TypeScript positions from source maps read inside the
// container, irregexp code named from the perf map node wrote to the container's /tmp under its
// namespace pid; --all-node finds it; every sample carries the container's short id.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('../harness');
const c = require('../consumers');
const p = require('./podman');
const { parseStack } = require('../../../fixtures/lib/hold');

const MODES = ['ptrace', 'bpf'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-ctr-host-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let img;
test.before(() => { if (!p.unavailable()) img = p.nodeImage(); });

// Error.stack's JS frames below spinHere, as the folded output's keys
function truthKeys(truth) {
  return parseStack(truth).filter((f) => f.line !== null).slice(1)
    .map((f) => (f.file.startsWith('node:') ? `${f.file}:${f.line}` : `${f.name === null || f.name === '<anonymous>' ? '(anonymous)' : f.name} (${f.file}:${f.line})`));
}

// The samples of the container's node in spinHere, with how many have Error.stack's frames below
function compareWithTruth(stdout, root, truth) {
  const want = truthKeys(truth);
  let total = 0, exact = 0;
  const roots = new Set();
  for (const s of h.parseFolded(stdout)) {
    roots.add(s.frames[0]);
    if (s.frames[0] !== root) continue;
    const js = s.frames.map(h.parseJsFrame).filter((f) => f && f.file).reverse();
    const i = js.findIndex((f) => /(^|\.)spinHere$/.test(f.name));
    if (i < 0) continue;
    total += s.count;
    const got = js.slice(i + 1).map((f) => (f.file.startsWith('node:') ? `${f.file}:${f.line}` : `${f.name} (${f.file}:${f.line})`));
    if (JSON.stringify(got) === JSON.stringify(want)) exact += s.count;
  }
  return { total, exact, want, roots: [...roots] };
}

const SM = `${p.APP}/sourcemaps`;
function sourcemapFiles() {
  const dir = path.join(h.FIXTURES, 'sourcemaps');
  return { ...p.fixtureFiles([]), [`${SM}/run.js`]: path.join(dir, 'run.js'), [`${SM}/out`]: path.join(dir, 'out'), [`${SM}/src`]: path.join(dir, 'src') };
}

for (const mode of MODES) {
  test(`[${mode}] from the host: a containerized node on another Node line, named as its Error.stack, TypeScript lines from maps inside the container, the container id on every sample`, async (t) => {
    if (p.skipUnless(t)) return;
    const build = require('node:child_process').spawnSync(path.join(h.FIXTURES, 'sourcemaps', 'build.sh'), { encoding: 'utf8' });
    assert.strictEqual(build.status, 0, `fixtures/sourcemaps/build.sh: ${build.stderr}`);
    const fx = await p.startContainer(t, {
      img, files: sourcemapFiles(),
      argv: ['node', `${SM}/run.js`, `${SM}/out/map/app.js`, '/tmp/release'],
    });
    t.after(() => { try { fs.writeFileSync(`/proc/${fx.hostPid}/root/tmp/release`, ''); } catch { /* gone */ } });
    assert.notStrictEqual(fx.ready.versions.node, process.versions.node, 'the container runs another Node line than the host');
    assert.ok(!fs.existsSync(p.APP), `${p.APP} is the container's alone`);
    assert.ok(fx.nsPid !== fx.hostPid, `its own pid namespace (pid ${fx.nsPid} inside, ${fx.hostPid} outside)`);
    const truth = fx.ready.truth;
    assert.ok(truthKeys(truth).some((k) => k.includes(`${SM}/src/handler.ts:`)), `the truth is source-mapped:\n${truth}`);

    const r = await h.runV8walk(['--mode', mode, '--pid', String(fx.hostPid), '--duration', '2', '--raw']);
    assert.strictEqual(r.code, 0, r.stderr);
    if (mode === 'ptrace') assert.match(r.stderr, new RegExp(`Node ${fx.ready.versions.node.replace(/\./g, '\\.')}`), 'the container\'s node binary was read');
    assert.match(r.stderr, /source maps: 2 of 2 scripts with a sourceMappingURL had their map loaded/);
    const root = `node [container=${fx.id.slice(0, 12)}] (${fx.hostPid})`;
    const cmp = compareWithTruth(r.stdout, root, truth);
    assert.deepStrictEqual(cmp.roots, [root], 'every sample under the container\'s process, labelled with its id');
    assert.ok(cmp.total >= 20, `samples in spinHere: ${cmp.total}\n${r.stdout.slice(0, 2000)}`);
    assert.ok(cmp.exact >= cmp.total * 0.9, `${cmp.exact} of ${cmp.total} samples with Error.stack's frames:\n${cmp.want.join('\n')}\n--- ours:\n${r.stdout.slice(0, 3000)}`);
    t.diagnostic(`${mode}: ${cmp.exact} of ${cmp.total} samples in spinHere exactly as Error.stack (Node ${fx.ready.versions.node} in the container, ${process.versions.node} on the host)`);
  });

  test(`[${mode}] from the host: the perf map node wrote to the container's /tmp under its namespace pid names irregexp code, not a decoy in the host's /tmp`, async (t) => {
    if (p.skipUnless(t)) return;
    const fx = await p.startContainer(t, {
      img, files: p.fixtureFiles(['regex.js']), podmanArgs: ['-w', '/tmp'],
      argv: ['node', '--perf-basic-prof', `${p.APP}/regex.js`],
    });
    const inside = `/proc/${fx.hostPid}/root/tmp/perf-${fx.nsPid}.map`;
    assert.ok(await h.waitFor(() => fs.existsSync(inside), 5000), `node wrote ${inside}`);
    assert.ok(!fs.existsSync(`/tmp/perf-${fx.nsPid}.map`), `the host has no /tmp/perf-${fx.nsPid}.map`);
    const decoy = `/tmp/perf-${fx.hostPid}.map`;
    fs.writeFileSync(decoy, '0 7fffffffffff FAKE-HOST-TMP\n');
    t.after(() => fs.rmSync(decoy, { force: true }));
    const r = await h.runV8walk(['--mode', mode, '--pid', String(fx.hostPid), '--duration', '2', '--raw']);
    assert.strictEqual(r.code, 0, r.stderr);
    const stacks = h.parseFolded(r.stdout);
    const total = stacks.reduce((a, s) => a + s.count, 0);
    const count = (pred) => stacks.filter((s) => s.frames.some(pred)).reduce((a, s) => a + s.count, 0);
    const named = count((f) => /^RegExp[:.]/.test(f) && f.includes(fx.ready.source));
    assert.strictEqual(count((f) => f.includes('FAKE-')), 0, 'the host\'s /tmp is not the container\'s');
    assert.ok(named >= total * 0.5, `${named}/${total} samples in the regexp, named from the container's map\n${r.stdout.slice(0, 1500)}`);
  });
}

test('[bpf] from the host: --all-node finds the containerized node; folded roots and pprof samples carry its container id', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await p.startContainer(t, { img, files: p.fixtureFiles(['deep.js']), argv: ['node', `${p.APP}/deep.js`] });
  const host = await h.startFixture('deep.js');
  t.after(() => host.stop());
  const short = fx.id.slice(0, 12);
  const pb = path.join(tmp, 'all.pb.gz'), folded = path.join(tmp, 'all.folded');
  const r = await h.runV8walk(['--mode', 'bpf', '--all-node', '--duration', '2', '-o', folded, '-o', pb]);
  assert.strictEqual(r.code, 0, r.stderr);
  const roots = new Set(h.parseFolded(fs.readFileSync(folded, 'utf8')).map((s) => s.frames[0]));
  assert.ok(roots.has(`node [container=${short}] (${fx.hostPid})`), `the container's node found:\n${[...roots].join('\n')}`);
  assert.ok(roots.has(`node (${host.pid})`), 'the host\'s node found, without a container');
  // pprof: the container label on the container's samples, none on the host's
  const tags = c.goPprof(['-tags', `-tagfocus=pid=${fx.hostPid}`], pb);
  assert.match(tags, new RegExp(`container: Total [\\d.]+s\\n\\s+[\\d.]+s \\(\\s*100%\\): ${short}\\n\\n`), tags);
  const hostTags = c.goPprof(['-tags', `-tagfocus=pid=${host.pid}`], pb);
  assert.doesNotMatch(hostTags, /container:/, hostTags);
});
