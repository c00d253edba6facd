// podman.js — real containers for the container tests: Debian's podman (rootful, crun) with the
// configuration of scripts/containers/podman.sh, images from scripts/containers/images.js. A
// fixture runs as a container's main process with its files copied into the container (its own
// paths, its own /tmp): the control protocol (fixtures/lib/control.js) runs over `podman start
// -ai`'s stdin and stdout. When podman cannot run containers here, unavailable() says why, and the
// tests skip with that reason.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const h = require('../harness');
const images = require('../../../scripts/containers/images');

const PODMAN = images.PODMAN;
// the Node line in the target containers: another than the host's (the host runs 20)
const CONTAINER_NODE = process.env.V8WALK_CONTAINER_NODE || '22.23.3';
// where fixtures are copied in a container: a path the host does not have
const APP = '/srv/v8walk-app';

function podman(args, { input, timeoutMs = 300000 } = {}) {
  const r = spawnSync(PODMAN, args, { encoding: 'utf8', input, timeout: timeoutMs, maxBuffer: 64 << 20 });
  if (r.status !== 0)
    throw new Error(`podman ${args.join(' ')} failed (${r.status ?? r.signal}): ${(r.stderr || '').trim().slice(-2000)}`);
  return r.stdout.trim();
}

// Why podman cannot run a container here (null: it can). Asked once.
let why;
function unavailable() {
  if (why !== undefined) return why;
  why = (() => {
    if (process.getuid() !== 0) return 'the container tests run podman rootful: run them as root';
    if (spawnSync('sh', ['-c', 'command -v podman']).status !== 0)
      return 'podman is not installed (scripts/containers/setup.sh installs it; `make check-containers` runs it)';
    if (!fs.existsSync(path.join(images.CACHE, 'podman', 'containers.conf')))
      return 'podman is not configured for the tests: run scripts/containers/setup.sh';
    const info = spawnSync(PODMAN, ['info', '--format', '{{.Host.CgroupsVersion}} {{.Host.OCIRuntime.Name}}'], { encoding: 'utf8' });
    if (info.status !== 0) return `podman info fails here: ${(info.stderr || '').trim().split('\n').pop()}`;
    return null;
  })();
  return why;
}

// Skip the test t (with the reason) when podman cannot run here; true when skipped.
function skipUnless(t) {
  const reason = unavailable();
  if (reason) t.skip(reason);
  return !!reason;
}

const image = (name) => images.image(name);
const nodeImage = () => image(`node-${CONTAINER_NODE}`);

// Copies of fixture files for a container: {container path: host path}. The fixture library
// comes along (fixtures/lib → APP/lib).
function fixtureFiles(names) {
  const files = {};
  for (const n of ['lib/control.js', 'lib/hold.js', ...names]) files[`${APP}/${n}`] = path.join(h.FIXTURES, n);
  return files;
}

let serial = 0;
const names = new Set();
process.on('exit', () => {
  for (const n of names) spawnSync(PODMAN, ['rm', '-f', '-t', '0', n], { stdio: 'ignore' });
});

// Start a container whose main process is a fixture: `podman create` with argv, the files
// ({container path: host file or directory}) copied in, then `podman start -ai`.
// Resolves with the fixture (harness.controlled) plus name, id, hostPid (the main process as the
// host sees it), nsPid (as the container does: the ready message's pid) and remove().
async function startContainer(t, { img, argv, files = {}, podmanArgs = [], name } = {}) {
  name ||= `v8walk-test-${process.pid}-${++serial}`;
  names.add(name);
  podman(['create', '-i', '--name', name, ...podmanArgs, img, ...argv]);
  const remove = () => { spawnSync(PODMAN, ['rm', '-f', '-t', '0', name], { stdio: 'ignore' }); names.delete(name); };
  t.after(remove);
  if (Object.keys(files).length) {
    // laid out under a staging directory at their container paths, copied in at once
    const stage = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'v8walk-ctr-'));
    try {
      for (const [to, from] of Object.entries(files))
        fs.cpSync(from, path.join(stage, to), { recursive: true, dereference: true });
      podman(['cp', `${stage}/.`, `${name}:/`]);
    } finally {
      fs.rmSync(stage, { recursive: true, force: true });
    }
  }
  const child = spawn(PODMAN, ['start', '-ai', name], { stdio: ['pipe', 'pipe', 'inherit'] });
  const running = () => child.exitCode === null && child.signalCode === null;
  const fx = await h.controlled(child, name, running, 120000);
  const state = JSON.parse(podman(['inspect', '--format', '{{json .State}}', name]));
  fx.name = name;
  fx.id = podman(['inspect', '--format', '{{.Id}}', name]);
  fx.hostPid = state.Pid;
  fx.nsPid = fx.ready.pid;
  fx.remove = remove;
  fx.stop = remove;
  return fx;
}

// Run a command in a new container and wait for it: {code, stdout, stderr}.
function runContainer(args, { timeoutMs = 300000 } = {}) {
  const r = spawnSync(PODMAN, ['run', '--rm', ...args], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
  return { code: r.status, signal: r.signal, stdout: r.stdout || '', stderr: r.stderr || '' };
}

// The same as a child process that may be waited for while the test goes on.
function runContainerAsync(args, { timeoutMs = 300000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(PODMAN, ['run', '--rm', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

// The v8walk binary the images carry: the static one of `make dist` (V8WALK_STATIC, default
// dist/linux-x64/v8walk) when it is there and not older than the build's own (so that a stale
// dist/ is not what is tested), else the build's (dynamically linked: it runs in an image with
// Debian's libraries, bookworm-runtime).
const STATIC = process.env.V8WALK_STATIC || path.join(h.ROOT, 'dist', 'linux-x64', 'v8walk');
function isStatic(file) {
  const r = spawnSync('readelf', ['-lW', file], { encoding: 'utf8' });
  return r.status === 0 && !/Requesting program interpreter/.test(r.stdout) && !/\bINTERP\b/.test(r.stdout);
}
function v8walkBinary() {
  const mtime = (f) => { try { return fs.statSync(f).mtimeMs; } catch { return -1; } };
  const chosen = process.env.V8WALK_STATIC ? fs.existsSync(STATIC) : mtime(STATIC) >= mtime(h.V8WALK);
  if (chosen && isStatic(STATIC)) return { file: STATIC, static: true };
  return { file: h.V8WALK, static: isStatic(h.V8WALK) };
}

// The agent image (contrib/container/Containerfile, as `make image` builds it) of v8walkBinary(),
// tagged by the binary's hash; built when missing.
function agentImage() {
  const bin = v8walkBinary().file;
  const hash = require('node:crypto').createHash('sha256').update(fs.readFileSync(bin))
    .update(fs.readFileSync(path.join(h.ROOT, 'contrib', 'container', 'Containerfile'))).digest('hex').slice(0, 12);
  const tag = `localhost/v8walk-test/agent:${hash}`;
  if (spawnSync(PODMAN, ['image', 'exists', tag]).status !== 0) {
    const r = spawnSync(path.join(h.ROOT, 'scripts', 'containers', 'build-image.sh'), [bin, tag], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build-image.sh failed: ${r.stderr}`);
    images.dropOtherKeys('agent', tag);
  }
  return tag;
}

module.exports = {
  agentImage,
  PODMAN, APP, CONTAINER_NODE, podman, unavailable, skipUnless, image, nodeImage, fixtureFiles,
  startContainer, runContainer, runContainerAsync, v8walkBinary, isStatic, STATIC,
};
