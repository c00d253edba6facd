#!/usr/bin/env node
// pack.js launcher|platform DIST [BINARY MAN_PAGE NOTICES] — one npm package, in the shape
// esbuild's packages have, staged in $STAGE/npm/KIND and packed with `npm pack` into DIST:
//   launcher: `v8walk` — lib/launcher.js and its bin, the man page; no dependencies but the
//             optional ones on every platform package at the same version; no install scripts
//             (-> DIST/v8walk-VERSION.tgz)
//   platform: `@v8walk/linux-ARCH` — os linux, cpu ARCH, the static binary as bin/v8walk
//             (-> DIST/v8walk-linux-ARCH-VERSION.tgz)
// Environment: VERSION, ARCH, STAGE.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [kind, dist, binary, manPage, notices] = process.argv.slice(2);
const { VERSION: version, ARCH: arch, STAGE: stageRoot } = process.env;
const here = __dirname;
const root = path.resolve(here, '..', '..');
const ARCHES = ['x64', 'arm64'];
const common = {
  version,
  license: 'GPL-2.0-or-later',
  keywords: ['profiler', 'node', 'v8', 'flamegraph', 'ptrace', 'ebpf', 'cpu-profile'],
};

function fail(msg) {
  process.stderr.write(`pack.js: ${msg}\n`);
  process.exit(1);
}

function copy(from, to, mode = 0o644) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  fs.chmodSync(to, mode);
}

function stageLauncher(stage) {
  copy(path.join(here, 'launcher', 'bin', 'v8walk.js'), path.join(stage, 'bin', 'v8walk.js'), 0o755);
  copy(path.join(here, 'launcher', 'lib', 'launcher.js'), path.join(stage, 'lib', 'launcher.js'));
  copy(path.join(here, 'launcher', 'README.md'), path.join(stage, 'README.md'));
  copy(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  copy(manPage, path.join(stage, 'man', 'v8walk.1'));
  return {
    name: 'v8walk',
    ...common,
    description: 'Sampling profiler for unmodified, running Node.js processes (Linux): JS and native frames, flame graphs, pprof, ClickHouse',
    bin: { v8walk: 'bin/v8walk.js' },
    man: ['./man/v8walk.1'],
    engines: { node: '>=16' },
    optionalDependencies: Object.fromEntries(ARCHES.map((a) => [`@v8walk/linux-${a}`, version])),
  };
}

function stagePlatform(stage) {
  if (!binary || !fs.existsSync(binary)) fail(`no binary at ${binary}`);
  copy(binary, path.join(stage, 'bin', 'v8walk'), 0o755);
  copy(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  copy(notices, path.join(stage, 'THIRD_PARTY_NOTICES'));
  fs.writeFileSync(path.join(stage, 'README.md'),
    fs.readFileSync(path.join(here, 'platform', 'README.md'), 'utf8').replaceAll('@ARCH@', arch));
  return {
    name: `@v8walk/linux-${arch}`,
    ...common,
    description: `The v8walk binary for Linux on ${arch} (installed by the v8walk package)`,
    os: ['linux'],
    cpu: [arch],
    preferUnplugged: true,
  };
}

if (!version || !arch || !stageRoot) fail('VERSION, ARCH and STAGE must be set');
if (kind !== 'launcher' && kind !== 'platform') fail(`launcher or platform, not ${kind}`);
if (kind === 'launcher' && !(manPage && fs.existsSync(manPage))) fail(`no man page at ${manPage}`);
const stage = path.resolve(stageRoot, 'npm', kind);
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
const pkg = kind === 'launcher' ? stageLauncher(stage) : stagePlatform(stage);
fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

const dest = path.resolve(dist);
fs.mkdirSync(dest, { recursive: true });
const r = spawnSync('npm', ['pack', '--json', '--pack-destination', dest], { cwd: stage, encoding: 'utf8' });
if (r.status !== 0) fail(`npm pack failed: ${r.stderr || r.error}`);
const [{ filename }] = JSON.parse(r.stdout);
const expected = kind === 'launcher' ? `v8walk-${version}.tgz` : `v8walk-linux-${arch}-${version}.tgz`;
if (path.basename(filename) !== expected) fail(`npm pack wrote ${filename}, expected ${expected}`);
console.log(`npm: ${path.join(dist, expected)}`);
