// launcher.test.js — the npm package's launcher (packaging/npm/launcher): which binary it finds
// (V8WALK_BINARY, this platform's package, one line when there is none), and that it runs it as
// if it were the binary itself: arguments verbatim, stdio inherited, the exit status or the
// death by signal given back, SIGINT/SIGTERM/SIGHUP/SIGUSR1 passed on and the binary's output
// written before the launcher ends. A fake binary (a node script) records what it got; a
// terminal's Ctrl-C (a pty made by script(1)) goes through the launcher to the real v8walk in
// launch mode, and the program it runs must see that SIGINT once.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const launcherDir = path.join(root, 'packaging', 'npm', 'launcher');
const launcherBin = path.join(launcherDir, 'bin', 'v8walk.js');
const { findBinary } = require(path.join(launcherDir, 'lib', 'launcher.js'));
const v8walk = process.env.V8WALK || path.join(root, 'build', 'v8walk');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-launcher-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// The fake binary: `exit N` exits N; `die SIG` kills itself with SIG; otherwise it says
// "ready" and runs until SIGINT, SIGTERM or SIGHUP, which it reports, then "writes its output"
// for 300 ms before exiting with 0; SIGUSR1 is reported and it runs on. FAKE_ARGS=FILE: its
// arguments as JSON; it copies its stdin to stdout when FAKE_ECHO is set.
const fake = path.join(tmp, 'fake-v8walk');
fs.writeFileSync(fake, `#!${process.execPath}
'use strict';
const fs = require('node:fs');
const args = process.argv.slice(2);
if (process.env.FAKE_ARGS) fs.writeFileSync(process.env.FAKE_ARGS, JSON.stringify(args));
if (process.env.FAKE_ECHO) { process.stdout.write(fs.readFileSync(0)); process.stderr.write('to stderr\\n'); }
if (args[0] === 'exit') process.exit(Number(args[1]));
if (args[0] === 'die') process.kill(process.pid, args[1]);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log('got ' + sig);
    setTimeout(() => { console.log('written'); process.exit(0); }, 300);
  });
}
process.on('SIGUSR1', () => console.log('got SIGUSR1'));
setInterval(() => {}, 1000);
console.log('ready');
`, { mode: 0o755 });

function runLauncher(args, env = {}, opts = {}) {
  return spawnSync(process.execPath, [launcherBin, ...args],
    { encoding: 'utf8', env: { ...process.env, V8WALK_BINARY: fake, ...env }, timeout: 20000, ...opts });
}

// the launcher running the fake in the background; lines() is what it has printed so far
function startLauncher(args = []) {
  const child = spawn(process.execPath, [launcherBin, ...args],
    { env: { ...process.env, V8WALK_BINARY: fake }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const done = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines: () => out.split('\n').filter(Boolean), done };
}

async function waitFor(cond, ms = 10000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (cond()) return;
  assert.fail('timed out waiting');
}

test('findBinary: V8WALK_BINARY first, then the platform package; one line where none fits', () => {
  assert.deepStrictEqual(findBinary({ env: { V8WALK_BINARY: '/opt/v8walk' }, platform: 'darwin', arch: 'arm64' }),
    { path: '/opt/v8walk' });
  const resolve = (name) => {
    assert.strictEqual(name, '@v8walk/linux-arm64/package.json');
    return '/app/node_modules/@v8walk/linux-arm64/package.json';
  };
  assert.deepStrictEqual(findBinary({ env: {}, platform: 'linux', arch: 'arm64', resolve }),
    { path: '/app/node_modules/@v8walk/linux-arm64/bin/v8walk' });
  for (const [platform, arch] of [['darwin', 'arm64'], ['win32', 'x64'], ['linux', 'ia32'], ['linux', 'ppc64']]) {
    const { error } = findBinary({ env: {}, platform, arch, resolve: () => assert.fail('not asked') });
    assert.match(error, new RegExp(`^v8walk: there is no v8walk binary for ${platform}/${arch}: it runs on Linux, x64 and arm64`));
    assert.ok(!error.includes('\n'), 'one line');
  }
  const missing = findBinary({ env: {}, platform: 'linux', arch: 'x64', resolve: () => { throw new Error('MODULE_NOT_FOUND'); } });
  assert.match(missing.error, /^v8walk: the package @v8walk\/linux-x64, which holds the binary for linux\/x64, is not installed \(npm leaves optional dependencies out with --omit=optional/);
  assert.match(missing.error, /release tarball v8walk-\S+-linux-x64\.tar\.gz/);
});

test('arguments reach the binary verbatim; its exit status is the launcher\'s', () => {
  const argsFile = path.join(tmp, 'args.json');
  const args = ['exit', '0', 'two words', '', 'é ✓', '--', '$HOME', '"quoted"', '-o', 'x.folded'];
  const r = runLauncher(args, { FAKE_ARGS: argsFile });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.deepStrictEqual(JSON.parse(fs.readFileSync(argsFile, 'utf8')), args);
  assert.strictEqual(runLauncher(['exit', '3']).status, 3);
  assert.strictEqual(runLauncher(['exit', '5']).status, 5, 'v8walk\'s permission status');
});

test('stdio is inherited: stdin, stdout and stderr are the binary\'s', () => {
  const r = runLauncher(['exit', '0'], { FAKE_ECHO: '1' }, { input: 'from stdin\n' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stdout, 'from stdin\n');
  assert.strictEqual(r.stderr, 'to stderr\n');
});

test('a binary killed by a signal: the launcher dies of the same signal', () => {
  for (const sig of ['SIGKILL', 'SIGTERM', 'SIGSEGV']) {
    const r = runLauncher(['die', sig]);
    assert.strictEqual(r.signal, sig, `${sig}: status ${r.status}, ${r.stderr}`);
  }
});

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  test(`${sig} is passed on once, and the launcher ends after the binary wrote its output`, async () => {
    const l = startLauncher();
    await waitFor(() => l.lines().includes('ready'));
    l.child.kill(sig);
    const { code, signal } = await l.done;
    assert.strictEqual(signal, null);
    assert.strictEqual(code, 0);
    assert.deepStrictEqual(l.lines(), ['ready', `got ${sig}`, 'written']);
  });
}

test('SIGUSR1 is passed on and the binary runs on', async () => {
  const l = startLauncher();
  await waitFor(() => l.lines().includes('ready'));
  l.child.kill('SIGUSR1');
  await waitFor(() => l.lines().includes('got SIGUSR1'));
  l.child.kill('SIGUSR1');
  await waitFor(() => l.lines().filter((x) => x === 'got SIGUSR1').length === 2);
  l.child.kill('SIGTERM');
  const { code } = await l.done;
  assert.strictEqual(code, 0);
  assert.deepStrictEqual(l.lines(), ['ready', 'got SIGUSR1', 'got SIGUSR1', 'got SIGTERM', 'written']);
});

test('a binary that cannot be run: one line, 127 (missing) or 126 (not executable)', () => {
  const r = runLauncher([], { V8WALK_BINARY: path.join(tmp, 'no-such-binary') });
  assert.strictEqual(r.status, 127);
  assert.match(r.stderr, /^v8walk: cannot run \S+no-such-binary: .*ENOENT.*\n$/);
  const notExec = path.join(tmp, 'not-executable');
  fs.writeFileSync(notExec, '#!/bin/sh\n', { mode: 0o644 });
  const n = runLauncher([], { V8WALK_BINARY: notExec });
  assert.strictEqual(n.status, 126, n.stderr);
  assert.strictEqual(n.stderr.split('\n').filter(Boolean).length, 1);
});

test('installed as npm lays it out: the platform package\'s binary, or one line without it', (t) => {
  const pkg = { 'linux x64': 'linux-x64', 'linux arm64': 'linux-arm64' }[`${process.platform} ${process.arch}`];
  if (!pkg) { t.skip(`no v8walk package for ${process.platform}/${process.arch}`); return; }
  const modules = path.join(tmp, 'app', 'node_modules');
  const main = path.join(modules, 'v8walk');
  fs.cpSync(launcherDir, main, { recursive: true });
  fs.writeFileSync(path.join(main, 'package.json'), JSON.stringify({ name: 'v8walk', version: '9.8.7' }));
  const env = { ...process.env };
  delete env.V8WALK_BINARY;
  const run = () => spawnSync(process.execPath, [path.join(main, 'bin', 'v8walk.js'), 'exit', '4'],
    { encoding: 'utf8', env, cwd: tmp });
  const without = run();
  assert.strictEqual(without.status, 1);
  assert.strictEqual(without.stderr.split('\n').filter(Boolean).length, 1, without.stderr);
  assert.match(without.stderr, new RegExp(`the package @v8walk/${pkg}, which holds the binary for ${process.platform}/${process.arch}, is not installed.*v8walk-9\\.8\\.7-${pkg}\\.tar\\.gz`));
  const platformDir = path.join(modules, '@v8walk', pkg);
  fs.mkdirSync(path.join(platformDir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(platformDir, 'package.json'), JSON.stringify({ name: `@v8walk/${pkg}`, version: '9.8.7' }));
  fs.copyFileSync(fake, path.join(platformDir, 'bin', 'v8walk'));
  fs.chmodSync(path.join(platformDir, 'bin', 'v8walk'), 0o755);
  assert.strictEqual(run().status, 4, 'the platform package\'s binary ran');
});

// A terminal's Ctrl-C reaches the whole foreground process group: the launcher, v8walk and the
// program v8walk launched. The launcher passes its copy on to v8walk; v8walk must not pass that
// copy on to the program, which already has the terminal's. ctrlC runs `LAUNCHER --mode ptrace
// --raw -o OUT -- node count-sigint.js` in a pty (script(1)), types Ctrl-C once the program runs,
// and gives back what the terminal showed and the exit status.
async function ctrlC(t, launcher, out) {
  if (spawnSync('sh', ['-c', 'command -v script'], { encoding: 'utf8' }).status !== 0) {
    t.skip('script(1) from util-linux is missing: no pty to type Ctrl-C into');
    return null;
  }
  if (!fs.existsSync(v8walk)) { t.skip(`no v8walk binary at ${v8walk} (make builds it)`); return null; }
  const program = path.join(tmp, 'count-sigint.js');
  fs.writeFileSync(program, `let n = 0;
process.on('SIGINT', () => {
  console.log('SIGINT ' + ++n);
  if (n === 1) setTimeout(() => { console.log('total ' + n); process.exit(7); }, 1500);
});
(function spin() { let x = 0; for (let i = 0; i < 1e5; i++) x += i; setImmediate(spin); })();
console.log('ready');
`);
  const q = (s) => `'${s.replace(/'/g, "'\\''")}'`;
  const cmd = ['exec', process.execPath, launcher, '--mode', 'ptrace', '--raw', '-o', out, '--', process.execPath, program]
    .map((s, i) => (i ? q(s) : s)).join(' ');
  const term = spawn('script', ['-qfec', cmd, '/dev/null'], {
    env: { ...process.env, V8WALK_BINARY: v8walk }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  term.stdout.on('data', (d) => { text += d; });
  term.stderr.on('data', (d) => { text += d; });
  const done = new Promise((resolve) => term.on('exit', (code) => resolve(code)));
  t.after(() => term.kill('SIGKILL'));
  await waitFor(() => /ready/.test(text), 20000);
  await new Promise((r) => setTimeout(r, 500)); // a few samples
  term.stdin.write('\x03');
  const code = await done;
  return { text, code };
}

test('Ctrl-C on a terminal through the launcher: the program v8walk launched gets one SIGINT, v8walk writes its profile', async (t) => {
  const out = path.join(tmp, 'launched.folded');
  const r = await ctrlC(t, launcherBin, out);
  if (!r) return;
  assert.deepStrictEqual(r.text.match(/SIGINT \d+/g), ['SIGINT 1'], `one SIGINT:\n${r.text}`);
  assert.match(r.text, /^total 1\r?$/m);
  assert.strictEqual(r.code, 7, `the program's exit status through v8walk and the launcher:\n${r.text}`);
  assert.ok(fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('count-sigint.js'), `the profile was written:\n${r.text}`);
});

// The same with a launcher that passes the signal on 300 ms late: v8walk has long read the
// terminal's by then, so only its rule (a signal from its parent within a second of the
// terminal's is the parent's copy) keeps the program from a second SIGINT.
test('a launcher slower than the terminal: its copy of Ctrl-C does not reach the program again', async (t) => {
  const slow = path.join(tmp, 'slow-launcher.js');
  fs.writeFileSync(slow, `const { spawn } = require('node:child_process');
const child = spawn(process.env.V8WALK_BINARY, process.argv.slice(2), { stdio: 'inherit' });
process.on('SIGINT', () => setTimeout(() => child.kill('SIGINT'), 300));
child.on('exit', (code, signal) => process.exit(signal ? 128 : code));
`);
  const r = await ctrlC(t, slow, path.join(tmp, 'slow.folded'));
  if (!r) return;
  assert.deepStrictEqual(r.text.match(/SIGINT \d+/g), ['SIGINT 1'], `one SIGINT:\n${r.text}`);
  assert.strictEqual(r.code, 7, r.text);
});
