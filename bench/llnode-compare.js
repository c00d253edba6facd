#!/usr/bin/env node
// llnode-compare.js — llnode's `v8 bt` against `v8walk --core` on the same cores. llnode 4.0.0
// (the last release) reads Node ≤ 20 only, so the default versions are 16, 18 and 20. For each
// version and each way of dying (process.abort(), an uncaught exception under
// --abort-on-uncaught-exception) it makes a kernel core of fixtures/postmortem.js, runs both
// tools on the crashed thread, prints the frames side by side (by depth) and the times.
//
//   node bench/llnode-compare.js [VERSION…]
//
// It installs what it needs: lldb from apt (when `lldb` is missing) and llnode from npm into
// ~/.cache/v8walk/llnode (outside the repository). Cores go to /tmp and are deleted.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const LLNODE_DIR = process.env.LLNODE_DIR || path.join(os.homedir(), '.cache', 'v8walk', 'llnode');
const LLNODE_SO = path.join(LLNODE_DIR, 'node_modules', 'llnode', 'llnode.so');
const versions = process.argv.slice(2).length ? process.argv.slice(2) : ['16.20.2', '18.20.8', '20.20.2'];

function run(cmd, args, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  r.seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return r;
}

function must(r, what) {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r;
}

function setup() {
  if (run('sh', ['-c', 'command -v lldb']).status !== 0) {
    console.log('installing lldb (apt-get install lldb liblldb-dev)…');
    must(run('apt-get', ['install', '-y', 'lldb', 'liblldb-dev'], { stdio: 'inherit' }), 'apt-get');
  }
  if (!fs.existsSync(LLNODE_SO)) {
    console.log(`installing llnode@4.0.0 into ${LLNODE_DIR}…`);
    fs.mkdirSync(LLNODE_DIR, { recursive: true });
    must(run('npm', ['init', '-y'], { cwd: LLNODE_DIR }), 'npm init');
    must(run('npm', ['install', 'llnode@4.0.0', '--foreground-scripts'], { cwd: LLNODE_DIR, stdio: 'inherit' }),
      'npm install llnode');
  }
}

function makeCore(node, mode, dir) {
  const flags = mode === 'throw' ? ['--abort-on-uncaught-exception'] : [];
  run('sh', ['-c', 'ulimit -c unlimited; exec "$0" "$@"', node, ...flags, path.join(ROOT, 'fixtures', 'postmortem.js'), mode],
    { cwd: dir });
  const core = path.join(dir, 'core');
  if (!fs.existsSync(core)) throw new Error(`no core from ${node} ${mode}`);
  return core;
}

// llnode: the first thread's "frame #N: 0xPC text" lines → [{pc, text}]
function llnodeFrames(out) {
  const frames = [];
  for (const l of out.split('\n')) {
    if (/^\s*\* thread #2/.test(l) || (/^\s*thread #2/.test(l))) break;
    const m = /frame #\d+: (0x[0-9a-f]+) (.*)$/.exec(l);
    if (m) frames.push({ pc: BigInt(m[1]), text: m[2].replace(/\(this=.*\) at /, '(…) at ').replace(/ fn=0x[0-9a-f]+$/, '') });
  }
  return frames;
}

function v8walkFrames(json) {
  const t = JSON.parse(json).threads[0];
  return t.frames.map((f) => ({
    pc: f.pc ? BigInt(f.pc) : null,
    text: f.kind === 'js' || f.kind === 'inlined' ? `${f.name} (${f.file}:${f.line}:${f.column})` : f.name,
  }));
}

function compare(version, mode) {
  const node = must(run(path.join(ROOT, 'scripts', 'fetch-node.sh'), [version]), 'fetch-node').stdout.trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-llnode-'));
  try {
    const core = makeCore(node, mode, dir);
    const ll = run('lldb', ['-b', '-o', `plugin load ${LLNODE_SO}`, '-o', 'v8 bt', node, '--core', core],
      { env: { ...process.env, PYTHONPATH: '/usr/lib/llvm-14/lib/python3.11/dist-packages' } });
    const vw = must(run(V8WALK, ['--core', core, '--json']), 'v8walk');
    const a = llnodeFrames(ll.stdout), b = v8walkFrames(vw.stdout);
    console.log(`\n=== Node ${version}, ${mode}: llnode ${ll.seconds.toFixed(2)} s, v8walk ${vw.seconds.toFixed(3)} s`);
    console.log(`  # ${'pc'.padEnd(18)}  ${'llnode v8 bt'.padEnd(64)}  v8walk`);
    let same = 0;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i], y = b[i];
      const pcOk = x && y && x.pc === y.pc;
      if (pcOk) same++;
      const pc = (x || y).pc;
      console.log(`${String(i).padStart(3)} ${pc === null ? ''.padEnd(18) : '0x' + pc.toString(16).padStart(16, '0')}` +
        `${pcOk ? ' ' : '!'} ${(x ? x.text : '-').slice(0, 64).padEnd(64)}  ${y ? y.text : '-'}`);
    }
    console.log(`frames: llnode ${a.length}, v8walk ${b.length}, same pc at the same depth: ${same} ('!' marks a difference)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

setup();
for (const v of versions) for (const mode of ['abort', 'throw']) compare(v, mode);
