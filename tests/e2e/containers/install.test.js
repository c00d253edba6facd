// install.test.js — the release artefacts of `make dist` installed as a user would, in minimal
// Debian containers (minbase: no compiler, no -dev package), against a node running there:
//   npx v8walk@VERSION and npm i -g v8walk, from an npm registry on loopback that holds only the
//     dist tarballs, published to it with `npm publish` (local_registry.js): never the public
//     registry, where a package of that name may not be ours; the time from npx to the first
//     sample, cold (a fresh container: empty npm cache);
//   the .deb with dpkg -i in bookworm minbase;
//   the tarball's binary in bullseye minbase, the oldest Debian the archive serves.
// Each profile is checked against the fixture's own definition lines. The artefacts are taken from
// V8WALK_DIST (default dist/ of the checkout); without them the tests skip and say so.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const h = require('../harness');
const p = require('./podman');
const { createRegistry } = require('./local_registry');

const DIST = process.env.V8WALK_DIST || path.join(h.ROOT, 'dist');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-ctr-install-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// The artefacts of one version, copied (the dist directory may be rebuilt meanwhile); null when
// `make dist` has not made them all.
function artefacts() {
  let names = [];
  try { names = fs.readdirSync(DIST); } catch { return null; }
  const m = names.map((n) => /^v8walk-(\d+\.\d+\.\d+[^-]*)\.tgz$/.exec(n)).find(Boolean);
  if (!m) return null;
  const v = m[1];
  const want = { launcher: `v8walk-${v}.tgz`, binary: `v8walk-linux-x64-${v}.tgz`, deb: `v8walk_${v}_amd64.deb`, tarball: `v8walk-${v}-linux-x64.tar.gz` };
  const out = { version: v };
  for (const [k, f] of Object.entries(want)) {
    if (!names.includes(f)) return null;
    out[k] = path.join(tmp, f);
    fs.copyFileSync(path.join(DIST, f), out[k]);
  }
  return out;
}

let a, registry, img;
const missing = () => (a ? null : `the release artefacts of make dist are not in ${DIST} (run make dist, or set V8WALK_DIST)`);
function skip(t) {
  if (p.skipUnless(t)) return true;
  if (missing()) { t.skip(missing()); return true; }
  return false;
}

test.before(async () => {
  a = artefacts();
  if (p.unavailable() || !a) return;
  img = p.image(`npm-${p.CONTAINER_NODE}`);
  registry = await createRegistry();
  const auth = `--${registry.url.replace(/^http:/, '')}:_authToken=local-only`;
  // (asynchronously: the registry answers from this process)
  for (const f of [a.binary, a.launcher]) {
    const r = await new Promise((resolve) => {
      const c = spawn('npm', ['publish', f, '--registry', registry.url, auth, '--access', 'public', '--ignore-scripts'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      c.stderr.on('data', (d) => { err += d; });
      c.stdout.resume();
      c.on('close', (code) => resolve({ code, err }));
    });
    assert.strictEqual(r.code, 0, `npm publish ${path.basename(f)}: ${r.err}`);
  }
});
test.after(() => registry && registry.close());

// deep.js in a container of img with SYS_PTRACE (v8walk runs beside it, in the same container)
function target(t, image, files = {}) {
  return p.startContainer(t, {
    img: image, podmanArgs: ['--cap-add', 'SYS_PTRACE'],
    files: { ...p.fixtureFiles(['deep.js']), ...files }, argv: ['node', `${p.APP}/deep.js`],
  });
}

// Run a shell command in the container; resolves {code, stdout, stderr, firstSampleMs, totalMs}:
// firstSampleMs from the start to v8walk's "sampling" line on stderr.
function exec(fx, script, env = {}) {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(p.PODMAN, ['exec', ...envArgs, fx.name, 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', firstSampleMs = null;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (firstSampleMs === null && /^v8walk: sampling /m.test(stderr)) firstSampleMs = Number(process.hrtime.bigint() - t0) / 1e6;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, firstSampleMs, totalMs: Number(process.hrtime.bigint() - t0) / 1e6 }));
  });
}

// The profile at `file` in the container names deep.js's functions at their definition lines
function assertProfile(fx, file) {
  const text = fs.readFileSync(`/proc/${fx.hostPid}/root${file}`, 'utf8');
  const stacks = h.parseFolded(text);
  const total = stacks.reduce((s, x) => s + x.count, 0);
  const leaf = stacks.filter((s) => s.frames.some((f) => f.startsWith(`leaf (${p.APP}/deep.js:`))).reduce((s, x) => s + x.count, 0);
  assert.ok(total >= 20, `${total} samples in ${file}`);
  assert.ok(leaf >= total * 0.5, `${leaf} of ${total} samples in deep.js's leaf`);
  const lines = new Set(stacks.flatMap((s) => s.frames).map((f) => /^down \(.*deep\.js:(\d+)\)/.exec(f)?.[1]).filter(Boolean).map(Number));
  assert.ok(lines.size && [...lines].every((l) => l >= fx.ready.lines.down && l < fx.ready.lines.down + 4), `down's lines ${[...lines]} within its body (defined at ${fx.ready.lines.down})`);
}

const npmEnv = () => ({ npm_config_registry: registry.url, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' });

test('npx v8walk@VERSION from the local registry only, in bookworm minbase: cold, to the first sample, and a profile of the node beside it', async (t) => {
  if (skip(t)) return;
  const fx = await target(t, img);
  // nothing of v8walk in the fresh container: npm's cache is empty, no global install
  const pre = await exec(fx, 'command -v v8walk; ls ~/.npm 2>/dev/null | wc -l; command -v cc gcc || true; dpkg -l | grep -c -- "-dev " || true');
  assert.deepStrictEqual(pre.stdout.trim().split('\n'), ['0', '0'], `a clean minbase container: ${pre.stdout}`);
  const seen = registry.requests.length;
  const r = await exec(fx, `npx --yes v8walk@${a.version} --pid 1 --duration 3 -o /tmp/npx.folded`, npmEnv());
  assert.strictEqual(r.code, 0, r.stderr);
  assert.ok(r.firstSampleMs > 0, `v8walk said it was sampling:\n${r.stderr}`);
  const asked = registry.requests.slice(seen);
  assert.ok(asked.includes('GET /v8walk') && asked.includes('GET /@v8walk/linux-x64'), `npm asked the local registry:\n${asked.join('\n')}`);
  assert.ok(asked.some((x) => x.startsWith('GET /@v8walk/linux-x64/-/')), 'the binary package\'s tarball came from it');
  assertProfile(fx, '/tmp/npx.folded');
  const baseline = await exec(fx, 'true');
  t.diagnostic(`npx cold, from the local tarballs to the first sample: ${(r.firstSampleMs / 1000).toFixed(2)} s, of which podman exec itself ${(baseline.totalMs / 1000).toFixed(2)} s; registry requests: ${asked.join(', ')}`);
});

test('npm i -g v8walk from the local registry in bookworm minbase: v8walk --version, and a profile', async (t) => {
  if (skip(t)) return;
  const fx = await target(t, img);
  const i = await exec(fx, 'npm install -g v8walk', npmEnv());
  assert.strictEqual(i.code, 0, i.stderr);
  const v = await exec(fx, 'v8walk --version');
  assert.strictEqual(v.code, 0, v.stderr);
  assert.match(v.stdout, new RegExp(`^v8walk ${a.version.replace(/\./g, '\\.')}\\b`));
  const resolved = await exec(fx, 'cat "$(npm root -g)/v8walk/package.json" "$(npm root -g)/v8walk/node_modules/@v8walk/linux-x64/package.json" 2>/dev/null || cat "$(npm root -g)/@v8walk/linux-x64/package.json"');
  assert.match(resolved.stdout, /"name": "@v8walk\/linux-x64"/, 'the platform package came along');
  const r = await exec(fx, 'v8walk --pid 1 --duration 3 -o /tmp/global.folded');
  assert.strictEqual(r.code, 0, r.stderr);
  assertProfile(fx, '/tmp/global.folded');
});

test('the .deb with dpkg -i in bookworm minbase: /usr/bin/v8walk runs and profiles', async (t) => {
  if (skip(t)) return;
  const fx = await target(t, img, { '/tmp/v8walk.deb': a.deb });
  const i = await exec(fx, 'dpkg -i /tmp/v8walk.deb');
  assert.strictEqual(i.code, 0, `dpkg -i: ${i.stdout}${i.stderr}`);
  const v = await exec(fx, '/usr/bin/v8walk --version && dpkg -s v8walk | grep -E "^(Status|Version):"');
  assert.strictEqual(v.code, 0, v.stderr);
  assert.match(v.stdout, new RegExp(`Status: install ok installed\\nVersion: ${a.version.replace(/\./g, '\\.')}`));
  const r = await exec(fx, 'v8walk --pid 1 --duration 3 -o /tmp/deb.folded');
  assert.strictEqual(r.code, 0, r.stderr);
  assertProfile(fx, '/tmp/deb.folded');
});

test('the tarball\'s binary in bullseye minbase (Debian 11): runs and profiles a node there', async (t) => {
  if (skip(t)) return;
  const bullseye = p.image('bullseye');
  const node = spawnSync(path.join(h.ROOT, 'scripts', 'fetch-node.sh'), [p.CONTAINER_NODE], { encoding: 'utf8' }).stdout.trim();
  const unpacked = fs.mkdtempSync(path.join(tmp, 'tarball-'));
  assert.strictEqual(spawnSync('tar', ['-xzf', a.tarball, '-C', unpacked]).status, 0);
  const dir = fs.readdirSync(unpacked)[0];
  const fx = await target(t, bullseye, { '/usr/local/bin/node': node, '/opt/v8walk': path.join(unpacked, dir) });
  const os = await exec(fx, 'cat /etc/debian_version; ldd --version | head -1');
  assert.match(os.stdout, /^11\./, os.stdout);
  const v = await exec(fx, '/opt/v8walk/v8walk --version');
  assert.strictEqual(v.code, 0, v.stderr);
  assert.match(v.stdout, new RegExp(`^v8walk ${a.version.replace(/\./g, '\\.')}\\b`));
  const r = await exec(fx, '/opt/v8walk/v8walk --pid 1 --duration 3 -o /tmp/tarball.folded');
  assert.strictEqual(r.code, 0, r.stderr);
  assertProfile(fx, '/tmp/tarball.folded');
  t.diagnostic(`bullseye: ${os.stdout.trim().replace('\n', ', ')}`);
});
