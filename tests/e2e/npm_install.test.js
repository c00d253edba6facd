// npm_install.test.js — `npx v8walk` on this machine as a user runs it: the npm packages of
// `make dist` (the launcher and the binary package of this machine's architecture) published to an
// npm registry on loopback that holds only them (containers/local_registry.js: never the public
// registry), then `npx --yes v8walk@VERSION` with an empty npm cache, by the npx of the node under
// test (or V8WALK_NPM's). npm must fetch the launcher and this machine's binary package, not the
// other machine's, and the binary must profile a real node: deep.js's functions at their
// definition lines. It is the emulated arm64 machine's install test (make check-arm64; the x86-64
// packages are installed in minimal Debian containers by containers/install.test.js). Skips,
// saying why, without the artefacts (V8WALK_DIST, default dist/: `make dist`, `make dist
// ARCH=arm64`) or an npx. Runs in the ptrace pass (what it installs samples in v8walk's default
// mode).
'use strict';
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const h = require('./harness');
const { createRegistry } = require('./containers/local_registry');

const DIST = process.env.V8WALK_DIST || path.join(h.ROOT, 'dist');
const ARCH = { x64: 'x64', arm64: 'arm64' }[process.arch];
const OTHER = ARCH === 'arm64' ? 'x64' : 'arm64';
// npm and npx: V8WALK_NPM's (an npm package's directory, run by the node under test: npm's
// node-linux-* packages carry node alone), else the ones beside the node
const NPM_DIR = process.env.V8WALK_NPM;
const npmCommand = (cli) => (NPM_DIR ? [h.NODE, path.join(NPM_DIR, 'bin', `${cli}-cli.js`)] : [path.join(path.dirname(h.NODE), cli)]);

// The launcher and this machine's binary package of one version; null where `make dist` has not
// made them.
function packages() {
  let names = [];
  try { names = fs.readdirSync(DIST); } catch { return null; }
  const m = names.map((n) => /^v8walk-(\d+\.\d+\.\d+[^-]*)\.tgz$/.exec(n)).find(Boolean);
  if (!m || !names.includes(`v8walk-linux-${ARCH}-${m[1]}.tgz`)) return null;
  return { version: m[1], launcher: path.join(DIST, m[0]), binary: path.join(DIST, `v8walk-linux-${ARCH}-${m[1]}.tgz`) };
}

function run(cmd, args, env, cwd) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    c.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

h.modeTest('ptrace', 'npx v8walk@VERSION from a registry holding only the dist packages: this machine\'s binary package, and a profile', async (t) => {
  const a = packages();
  if (!ARCH) return t.skip(`no v8walk package for ${process.arch}`);
  if (!a) return t.skip(`the launcher and v8walk-linux-${ARCH} packages of make dist are not in ${DIST} (run make dist${ARCH === 'arm64' ? ' ARCH=arm64' : ''}, or set V8WALK_DIST)`);
  const [npx, ...npxArgs] = npmCommand('npx'), [npm, ...npmArgs] = npmCommand('npm');
  if (!fs.existsSync(npxArgs[0] || npx)) return t.skip(`no npx beside ${h.NODE}, and V8WALK_NPM names no npm (Debian packages npm apart)`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-npx-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const registry = await createRegistry();
  t.after(() => registry.close());
  const env = {
    PATH: `${path.dirname(h.NODE)}:/usr/bin:/bin`, HOME: home, npm_config_cache: path.join(home, 'cache'),
    npm_config_registry: registry.url, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false',
  };
  const auth = `--${registry.url.replace(/^http:/, '')}:_authToken=local-only`;
  for (const f of [a.binary, a.launcher]) {
    // (a cache of its own: npm keeps what it publishes, which npx would then find there)
    const r = await run(npm, [...npmArgs, 'publish', f, '--registry', registry.url, auth, '--access', 'public', '--ignore-scripts'],
      { ...env, npm_config_cache: path.join(home, 'publish-cache') }, home);
    assert.strictEqual(r.code, 0, `npm publish ${path.basename(f)}: ${r.err}`);
  }
  const fx = await h.startFixture('deep.js');
  t.after(() => fx.stop());
  const seen = registry.requests.length;
  const out = path.join(home, 'npx.folded');
  const t0 = Date.now();
  const r = await run(npx, [...npxArgs, '--yes', `v8walk@${a.version}`, '--pid', String(fx.pid), '--duration', '3', '-o', out], env, home);
  const ms = Date.now() - t0;
  const asked = registry.requests.slice(seen);
  // how npx ended, and whether v8walk had started (its first line) or npm ended before
  assert.strictEqual(r.code, 0, `npx ended ${r.signal ? `by ${r.signal}` : `with status ${r.code}`} after ${(ms / 1000).toFixed(1)} s, ` +
    `${/^v8walk: /m.test(r.err) ? 'after v8walk had started' : 'with no line from v8walk (npm ended before the binary wrote its first)'}; ` +
    `the registry served:\n${asked.join('\n')}\nits stderr:\n${r.err}\nits stdout:\n${r.out}`);
  assert.ok(asked.includes('GET /v8walk') && asked.some((x) => x.startsWith(`GET /@v8walk/linux-${ARCH}/-/`)),
    `npm fetched the launcher and the linux-${ARCH} package from the local registry:\n${asked.join('\n')}`);
  assert.ok(!asked.some((x) => x.startsWith(`GET /@v8walk/linux-${OTHER}/-/`)), `npm fetched no linux-${OTHER} tarball:\n${asked.join('\n')}`);
  const stacks = h.parseFolded(fs.readFileSync(out, 'utf8'));
  const total = stacks.reduce((s, x) => s + x.count, 0);
  const leaf = stacks.filter((s) => s.frames.some((f) => f.startsWith(`leaf (${fx.ready.file}:`))).reduce((s, x) => s + x.count, 0);
  assert.ok(total >= 20, `${total} samples`);
  assert.ok(leaf >= total * 0.5, `${leaf} of ${total} samples in deep.js's leaf`);
  const lines = new Set(stacks.flatMap((s) => s.frames).map((f) => /^down \(.*deep\.js:(\d+)\)/.exec(f)?.[1]).filter(Boolean).map(Number));
  const down = fx.ready.lines.down;
  assert.ok(lines.size && [...lines].every((l) => l >= down && l < down + 4), `down's lines ${[...lines]} within its body (defined at ${down})`);
  t.diagnostic(`npx with an empty cache, from the local registry to the profile written: ${(ms / 1000).toFixed(1)} s (3 s of it sampling)`);
});
