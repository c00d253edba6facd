#!/usr/bin/env node
// images.js — the container images the container tests run, built here from Debian root
// filesystems (mmdebstrap, no image registry) and cached, each keyed by what it was built from:
//
//   bookworm          Debian 12 minbase: no compiler, no -dev package (the install tests)
//   bullseye          Debian 11 minbase, the oldest Debian the archive serves
//   bookworm-runtime  bookworm + the shared libraries a dynamically linked v8walk needs
//   node-VERSION      bookworm-runtime + the official node VERSION (scripts/fetch-node.sh) at the
//                     path the host's own node has, so that confusing the two would show
//   npm-VERSION       bookworm + node VERSION and npm (the npm registry's package) under
//                     /usr/local, as an official Node tarball installs them
//
// A root filesystem is a tar in $V8WALK_CT_CACHE/rootfs/NAME-KEY.tar, imported as
// localhost/v8walk-test/NAME:KEY; an image built from another (a Containerfile in a temporary
// context) is tagged the same way. Nothing is rebuilt while its tag is in podman's storage.
//
//   node scripts/containers/images.js NAME...   builds what is missing, prints each tag
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = process.env.V8WALK_CT_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'v8walk', 'containers');
const PODMAN = path.join(__dirname, 'podman.sh');
const MIRROR = process.env.V8WALK_DEBIAN_MIRROR || 'http://deb.debian.org/debian';
// the npm CLI put beside node in the npm-VERSION images (the one Node 22.23 ships with)
const NPM_VERSION = '10.9.7';
// what the host runs as `node` (the node images put theirs at the same path)
const HOST_NODE = fs.realpathSync(spawnSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).stdout.trim() || process.execPath);

// Documentation, manual pages and translations are left out of every root filesystem; apt's
// lists and caches are removed after the build (the images install nothing later).
const TRIM = [
  '--dpkgopt=path-exclude=/usr/share/man/*', '--dpkgopt=path-exclude=/usr/share/doc/*',
  '--dpkgopt=path-exclude=/usr/share/locale/*', '--dpkgopt=path-exclude=/usr/share/info/*',
  '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*',
];
// The Debian packages of the shared libraries the build's v8walk links (ldd, then dpkg -S on this
// bookworm host), libc's aside, and ca-certificates for TLS: the runtime image follows the build's
// own dependencies, and its key changes when they do.
function runtimeLibs() {
  const bin = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
  const ldd = spawnSync('ldd', [bin], { encoding: 'utf8' });
  if (ldd.status !== 0) throw new Error(`bookworm-runtime: ldd ${bin} failed (make first): ${ldd.stderr || ldd.stdout}`);
  const pkgs = new Set(['ca-certificates']);
  for (const m of ldd.stdout.matchAll(/=> (\/\S+)/g)) {
    const owner = [m[1], fs.realpathSync(m[1])].map((f) => spawnSync('dpkg', ['-S', f], { encoding: 'utf8' }))
      .find((r) => r.status === 0);
    if (!owner) throw new Error(`bookworm-runtime: no Debian package holds ${m[1]}`);
    const pkg = owner.stdout.split(':')[0];
    if (pkg !== 'libc6') pkgs.add(pkg);
  }
  return [...pkgs].sort();
}
const ROOTFS = {
  bookworm: { suite: 'bookworm', include: [] },
  bullseye: { suite: 'bullseye', include: [] },
  get 'bookworm-runtime'() { return { suite: 'bookworm', include: runtimeLibs() }; },
};

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${(r.stderr || '').slice(-4000)}`);
  return r.stdout;
}
const podman = (args, opts) => run(PODMAN, args, opts);
const key = (recipe) => crypto.createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 12);
const tagOf = (name, k) => `localhost/v8walk-test/${name}:${k}`;
const hasImage = (tag) => spawnSync(PODMAN, ['image', 'exists', tag]).status === 0;
// Remove the other keys of an image name (built from what is no longer current) and their root
// filesystems, so that the cache holds one of each.
function dropOtherKeys(name, keep) {
  const repo = `localhost/v8walk-test/${name}`;
  const list = spawnSync(PODMAN, ['images', '--format', '{{.Repository}}:{{.Tag}}', repo], { encoding: 'utf8' }).stdout || '';
  for (const t of list.split('\n').filter((x) => x && x !== keep && x.startsWith(`${repo}:`)))
    spawnSync(PODMAN, ['rmi', '--force', t], { stdio: 'ignore' });
  const dir = path.join(CACHE, 'rootfs');
  const keepFile = `${name}-${keep.slice(repo.length + 1)}.tar`;
  const mine = new RegExp(`^${name.replace(/[.]/g, '\\.')}-[0-9a-f]{12}\\.tar$`);
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : [])
    if (mine.test(f) && f !== keepFile) fs.rmSync(path.join(dir, f), { force: true });
}

function fileHash(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
}

// A Debian minbase root filesystem as an image.
function rootfsImage(name) {
  const r = ROOTFS[name];
  const recipe = { name, ...r, variant: 'minbase', trim: TRIM, v: 1 };
  const k = key(recipe);
  const tag = tagOf(name, k);
  if (hasImage(tag)) return tag;
  const dir = path.join(CACHE, 'rootfs');
  fs.mkdirSync(dir, { recursive: true });
  const tar = path.join(dir, `${name}-${k}.tar`);
  if (!fs.existsSync(tar)) {
    const tmp = `${tar}.tmp`;
    const inc = r.include.length ? [`--include=${r.include.join(',')}`] : [];
    run('mmdebstrap', ['--quiet', '--format=tar', '--variant=minbase', ...inc, ...TRIM, r.suite, tmp, MIRROR], { stdio: ['ignore', 'pipe', 'pipe'] });
    fs.renameSync(tmp, tar);
  }
  podman(['import', '--quiet', '--change', 'CMD ["/bin/bash"]', tar, tag]);
  dropOtherKeys(name, tag);
  return tag;
}

// An image FROM another, built from `files` ({name in the context: source path}) and the
// Containerfile text (FROM is added).
function derivedImage(name, base, files, containerfile) {
  const baseTag = image(base);
  const recipe = { base: baseTag, containerfile, files: Object.fromEntries(Object.entries(files).map(([n, f]) => [n, fileHash(f)])) };
  const tag = tagOf(name, key(recipe));
  if (hasImage(tag)) return tag;
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-image-'));
  try {
    for (const [n, f] of Object.entries(files)) fs.copyFileSync(f, path.join(ctx, n));
    fs.writeFileSync(path.join(ctx, 'Containerfile'), `FROM ${baseTag}\n${containerfile}`);
    podman(['build', '--quiet', '--network', 'host', '-f', path.join(ctx, 'Containerfile'), '-t', tag, ctx]);
  } finally {
    fs.rmSync(ctx, { recursive: true, force: true });
  }
  dropOtherKeys(name, tag);
  return tag;
}

// The official node VERSION (fetched and checked by scripts/fetch-node.sh).
function nodeBinary(version) {
  return run(path.join(ROOT, 'scripts', 'fetch-node.sh'), [version]).trim();
}

// npm's own package from the registry, checked against its integrity (cached).
function npmTarball(version) {
  const dir = path.join(CACHE, 'npm');
  const tgz = path.join(dir, `npm-${version}.tgz`);
  if (fs.existsSync(tgz)) return tgz;
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, '.fetch-'));
  try {
    run('npm', ['pack', '--silent', `npm@${version}`], { cwd: tmp });
    const want = run('npm', ['view', `npm@${version}`, 'dist.integrity']).trim();
    const got = 'sha512-' + crypto.createHash('sha512').update(fs.readFileSync(path.join(tmp, `npm-${version}.tgz`))).digest('base64');
    if (want !== got) throw new Error(`npm-${version}.tgz does not match the registry's integrity ${want}`);
    fs.renameSync(path.join(tmp, `npm-${version}.tgz`), tgz);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return tgz;
}

function image(name) {
  if (ROOTFS[name]) return rootfsImage(name);
  let m = /^node-(\d+\.\d+\.\d+)$/.exec(name);
  if (m) {
    return derivedImage(name, 'bookworm-runtime', { node: nodeBinary(m[1]) },
      `COPY node ${HOST_NODE}\nRUN ${HOST_NODE} --version\n`);
  }
  m = /^npm-(\d+\.\d+\.\d+)$/.exec(name);
  if (m) {
    return derivedImage(name, 'bookworm', { node: nodeBinary(m[1]), 'npm.tgz': npmTarball(NPM_VERSION) },
      'COPY node /usr/local/bin/node\n' +
      'ADD npm.tgz /usr/local/lib/node_modules/\n' +
      'RUN mv /usr/local/lib/node_modules/package /usr/local/lib/node_modules/npm && ' +
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ' +
      'ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && npm --version\n');
  }
  throw new Error(`images.js: no image named ${name}`);
}

module.exports = { image, dropOtherKeys, CACHE, PODMAN, HOST_NODE, NPM_VERSION };

if (require.main === module) {
  const names = process.argv.slice(2);
  if (!names.length) {
    console.error('usage: images.js NAME... (bookworm, bullseye, bookworm-runtime, node-VERSION, npm-VERSION)');
    process.exit(2);
  }
  for (const n of names) {
    const t0 = Date.now();
    console.log(`${image(n)}\t${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}
