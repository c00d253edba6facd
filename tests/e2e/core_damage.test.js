// core_damage.test.js — `--core` on damaged or wrong input: a truncated core, a core whose V8 heap
// was not dumped, a core of a program that is not node, a missing or different binary, a library
// that changed since the crash, garbage and corrupted files. Each gives a clear message; where
// stacks can still be trusted they are printed with the damage stated (exit 3), never a crash.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const k = require('./corekit');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-damage-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// one real abort core of the node under test, shared by the tests below (they damage copies)
let base, baseDump;
test.before(async () => {
  const dir = path.join(tmp, 'base');
  fs.mkdirSync(dir);
  base = await k.crashFixture(null, 'abort', { dir });
  const r = await k.coreJson(['--core', base.core]);
  assert.strictEqual(r.code, 0, r.stderr);
  baseDump = r.dump;
  assert.ok(k.jsFrames(baseDump.threads[0]).some((f) => f.name === 'crashLeaf'), 'the intact core names crashLeaf');
});

let copies = 0;
function copyOfBase() {
  return k.copyCore(base.core, path.join(tmp, `copy-${++copies}`));
}

function oneLine(stderr) {
  const lines = stderr.trim().split('\n');
  assert.strictEqual(lines.length, 1, `one line of error, got:\n${stderr}`);
  assert.match(lines[0], /^v8walk: /);
  return lines[0];
}

// the executable as the core names it (the kernel records resolved paths)
const NODE_REAL = fs.realpathSync(h.NODE);

const frameKey = (f) => `${f.kind} ${f.name} ${f.pc}`;

test('[cores] a core cut off inside the crashed thread\'s stack: the innermost frames, the damage stated', async () => {
  const layout = k.readLayout(base.core);
  const sp = layout.threads[0].sp;
  const seg = layout.loads.find((l) => l.vaddr <= sp && sp < l.vaddr + l.memsz);
  const file = copyOfBase();
  // keep 2 KiB of the stack above the stack pointer (the abort path), lose the rest of the file
  fs.truncateSync(file, seg.offset + Number(sp - seg.vaddr) + 2048);
  const r = await k.coreJson(['--core', file]);
  assert.strictEqual(r.code, 3, r.stderr);
  assert.match(r.dump.warnings.join('\n'), /^the core is truncated: \d+ of \d+ bytes are present/);
  assert.match(r.stderr, /v8walk: warning: the core is truncated/);
  const crashed = r.dump.threads[0], intact = baseDump.threads[0];
  assert.strictEqual(crashed.tid, intact.tid);
  assert.strictEqual(crashed.truncated, true);
  assert.match(crashed.damage, /read.* fell in the part of the core that was cut off/);
  // what is shown is trustworthy: a prefix of the intact core's walk, and not empty
  assert.ok(crashed.frames.length >= 3, `innermost frames kept: ${crashed.frames.map((f) => f.name)}`);
  assert.ok(crashed.frames.length < intact.frames.length);
  // the outermost frame kept is the one whose return address was the last readable word: its pc is
  // exact, but what it is may be told by its own frame (a builtin's type marker, below fp) lying past
  // the cut — where no symbol names its pc (a stripped libnode), it is then named from the pc alone
  const n = crashed.frames.length;
  assert.deepStrictEqual(crashed.frames.slice(0, n - 1).map(frameKey), intact.frames.slice(0, n - 1).map(frameKey));
  const last = crashed.frames[n - 1], same = intact.frames[n - 1];
  assert.strictEqual(last.pc, same.pc, `outermost frame kept: ${frameKey(last)}, intact: ${frameKey(same)}`);
  assert.ok(frameKey(last) === frameKey(same) || last.kind === 'unknown',
    `outermost frame kept: ${frameKey(last)}, intact: ${frameKey(same)}`);
  // the other threads' stacks lie before the cut: intact
  assert.strictEqual(r.dump.threads.length, baseDump.threads.length);
  for (const t of r.dump.threads.slice(1)) {
    const i = baseDump.threads.find((x) => x.tid === t.tid);
    assert.deepStrictEqual(t.frames.map(frameKey), i.frames.map(frameKey), `thread ${t.tid} intact`);
  }
});

test('[cores] a core cut off in its headers or notes: one line, nothing else', async () => {
  for (const size of [40, 1000, 6000]) {
    const file = copyOfBase();
    fs.truncateSync(file, size);
    const r = await h.runV8walk(['--core', file]);
    assert.strictEqual(r.code, 1, `${size} bytes: ${r.stderr}`);
    assert.match(oneLine(r.stderr), /is truncated: it ends inside its (ELF header|program headers|notes)/);
    assert.strictEqual(r.stdout, '');
  }
});

test('[cores] a core whose V8 heap was not dumped: native frames complete, JS frames unnamed, the damage stated', async () => {
  const layout = k.readLayout(base.core);
  const file = copyOfBase();
  let dropped = 0;
  for (const l of layout.loads) {
    const stack = layout.threads.some((t) => l.vaddr <= t.sp && t.sp < l.vaddr + l.memsz);
    const fileBacked = layout.files.some((f) => f.start <= l.vaddr && l.vaddr < f.end);
    if ((l.flags & 2) && l.filesz > 0 && !stack && !fileBacked) {
      k.setFilesz(file, l, 0);
      dropped++;
    }
  }
  assert.ok(dropped > 5, `anonymous writable segments dropped: ${dropped}`);
  const r = await k.coreJson(['--core', file]);
  assert.strictEqual(r.code, 3, r.stderr);
  const crashed = r.dump.threads[0];
  assert.match(crashed.damage, /^\d+ reads? needed memory the core does not hold \(not dumped\): frames that needed it are unnamed/);
  assert.match(r.stderr, /threads walked over memory missing from the core/);
  assert.deepStrictEqual(k.jsFrames(crashed), [], 'no JS frame named from a heap that is not there');
  const names = crashed.frames.map((f) => f.name);
  assert.ok(names.includes('node::Abort') && names.includes('uv_run'), names.join(', '));
  assert.strictEqual(crashed.truncated, false, 'the stack itself is whole');
});

test('[cores] a core of a program that is not node: its native stacks, and a warning saying so', async (t) => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await h.sleep(200);
  const file = k.gcore(child.pid, tmp);
  child.kill('SIGKILL');
  t.after(() => fs.rmSync(file, { force: true }));
  const r = await k.coreJson(['--core', file]);
  assert.strictEqual(r.code, 3, r.stderr);
  assert.deepStrictEqual(r.dump.warnings,
    ['the core is of sleep, not of a Node.js process (no V8 in any mapped file): only native frames are shown']);
  assert.strictEqual(r.dump.runtime, 'no V8 (native frames only)');
  const main = r.dump.threads[0];
  assert.strictEqual(main.tid, child.pid);
  assert.ok(main.frames.some((f) => /nanosleep/.test(f.name) && f.module === 'libc.so.6'), JSON.stringify(main.frames));
  assert.ok(main.frames.every((f) => f.kind !== 'js'));
});

test('[cores] the binary is gone: refused with a hint; --exe with the same build elsewhere is accepted', async (t) => {
  const dir = path.join(tmp, 'moved');
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  const copy = path.join(dir, 'bin', 'node');
  fs.copyFileSync(h.NODE, copy);
  fs.chmodSync(copy, 0o755);
  const fx = await k.crashFixture(t, 'abort', { node: copy, dir });
  fs.rmSync(copy);
  const r = await h.runV8walk(['--core', fx.core]);
  assert.strictEqual(r.code, 1);
  assert.strictEqual(oneLine(r.stderr), `v8walk: the core's executable ${copy} cannot be read here (no such file ` +
    'on this machine): give the binary that crashed with --exe PATH');
  const ok = await k.coreJson(['--core', fx.core, '--exe', h.NODE]);
  assert.strictEqual(ok.code, 0, ok.stderr);
  k.assertCrashedJs(k.jsFrames(ok.dump.threads[0]), fx.truth.truth, 'abort', 'JS frames with --exe');
});

test('[cores] a different binary: refused, naming both build-ids', async () => {
  const mine = k.buildId(h.NODE);
  // the other node builds of scripts/fetch-node.sh's cache, where this machine has one
  const cache = path.join(os.homedir(), '.cache', 'v8walk', 'node');
  const others = (fs.existsSync(cache) ? fs.readdirSync(cache) : []).map((v) => path.join(cache, v, 'package', 'bin', 'node'))
    .filter((p) => fs.existsSync(p) && k.buildId(p) !== mine);
  const other = others[0] || '/bin/sleep'; // any ELF file with another build-id shows the check
  const r = await h.runV8walk(['--core', base.core, '--exe', other]);
  assert.strictEqual(r.code, 1);
  assert.strictEqual(oneLine(r.stderr), `v8walk: ${other} (build-id ${k.buildId(other)}) is not the binary that ` +
    `wrote this core (build-id ${mine}, ${NODE_REAL}): give the one that crashed with --exe PATH`);
  assert.strictEqual(r.stdout, '');
});

// Flip one byte of the build-id in the core's copy of a file's first page.
function flipBuildId(core, layout, mappedPath) {
  const id = Buffer.from(k.buildId(mappedPath), 'hex');
  const first = layout.files.find((f) => f.path === mappedPath && f.pgoff === 0n);
  const seg = layout.loads.find((l) => l.vaddr === first.start);
  const page = Buffer.alloc(4096);
  const fd = fs.openSync(core, 'r+');
  fs.readSync(fd, page, 0, 4096, seg.offset);
  const at = page.indexOf(id);
  assert.ok(at > 0, `the core holds ${mappedPath}'s build-id`);
  page[at] ^= 0xff;
  fs.writeSync(fd, page, at, 1, seg.offset + at);
  fs.closeSync(fd);
  return page.subarray(at, at + id.length).toString('hex');
}

test('[cores] a library that changed since the crash: stacks shown, the library named with both build-ids', async () => {
  const layout = k.readLayout(base.core);
  const libc = layout.files.find((f) => /\/libc\.so\.6$/.test(f.path)).path;
  const file = copyOfBase();
  const inCore = flipBuildId(file, layout, libc);
  const r = await k.coreJson(['--core', file]);
  assert.strictEqual(r.code, 3, r.stderr);
  assert.deepStrictEqual(r.dump.warnings, [`${libc} differs from the file the process had mapped (build-id ` +
    `${k.buildId(libc)} here, ${inCore} in the core): its frames may be misnamed`]);
  assert.deepStrictEqual(r.dump.threads[0].frames.map(frameKey), baseDump.threads[0].frames.map(frameKey));
});

test('[cores] an executable whose build-id differs from the core\'s: refused', async () => {
  const layout = k.readLayout(base.core);
  const file = copyOfBase();
  const inCore = flipBuildId(file, layout, NODE_REAL);
  const r = await h.runV8walk(['--core', file]);
  assert.strictEqual(r.code, 1);
  assert.strictEqual(oneLine(r.stderr), `v8walk: ${NODE_REAL} (build-id ${k.buildId(h.NODE)}) is not the binary ` +
    `that wrote this core (build-id ${inCore}, ${NODE_REAL}): give the one that crashed with --exe PATH`);
});

test('[cores] the file carrying V8 differs from the core\'s (node, or libnode.so): refused', async () => {
  const info = await h.runV8walk(['--core', base.core, '--version-info']);
  const v8module = /^V8 module: +(\S+)/m.exec(info.stdout)[1];
  const layout = k.readLayout(base.core);
  const file = copyOfBase();
  const inCore = flipBuildId(file, layout, v8module);
  const r = await h.runV8walk(['--core', file]);
  assert.strictEqual(r.code, 1);
  const line = oneLine(r.stderr);
  if (v8module === NODE_REAL) {
    assert.match(line, /is not the binary that wrote this core/);
  } else {
    assert.strictEqual(line, `v8walk: ${v8module} (build-id ${k.buildId(v8module)}) is not the library that wrote ` +
      `this core (build-id ${inCore}): V8's objects cannot be read with another build of it`);
  }
});

test('[cores] garbage, empty, missing and non-core files: one specific line each', async () => {
  const garbage = path.join(tmp, 'garbage');
  fs.writeFileSync(garbage, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff)));
  const empty = path.join(tmp, 'empty');
  fs.writeFileSync(empty, '');
  const cases = [
    [garbage, /garbage is not a core file \(not ELF\)$/],
    [empty, /empty is empty \(a core limited by ulimit -c 0, or the write failed\)$/],
    [path.join(tmp, 'no-such-core'), /cannot open core file .*no-such-core: No such file or directory$/],
    [tmp, /is not a regular file$/],
    [h.NODE, /is (an executable|a shared object or PIE executable), not a core file$/],
  ];
  for (const [file, re] of cases) {
    const r = await h.runV8walk(['--core', file]);
    assert.strictEqual(r.code, 1, file);
    assert.match(oneLine(r.stderr), re);
    assert.strictEqual(r.stdout, '');
  }
});

test('[cores] corrupted cores: never a crash or a hang, only output, warnings or one-line errors', async (t) => {
  let seed = 0x2545f491;
  const rand = (n) => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) % n; };
  const size = fs.statSync(base.core).size;
  const outcomes = { 0: 0, 1: 0, 3: 0 };
  for (let i = 0; i < 40; i++) {
    const file = copyOfBase();
    const fd = fs.openSync(file, 'r+');
    // half the copies get their headers and notes hit, the other half their memory (stacks, heap)
    const span = i % 2 ? 65536 : size;
    for (let j = 0; j < 64; j++) fs.writeSync(fd, Buffer.from([rand(256), rand(256), rand(256), rand(256)]), 0, 4, rand(span - 4));
    fs.closeSync(fd);
    const r = await h.runV8walk(['--core', file, '--json'], { timeoutMs: 30000 });
    assert.strictEqual(r.signal, null, `copy ${i}: v8walk died of ${r.signal}\n${r.stderr}`);
    assert.ok([0, 1, 3].includes(r.code), `copy ${i}: exit ${r.code}\n${r.stderr}`);
    for (const l of r.stderr.trim().split('\n').filter(Boolean)) assert.match(l, /^v8walk: /);
    if (r.code !== 1) JSON.parse(r.stdout);
    outcomes[r.code]++;
    fs.rmSync(file);
  }
  t.diagnostic(`exit codes: ${JSON.stringify(outcomes)}`);
});

test('[cores] option mistakes with --core: refused with the rule', async () => {
  for (const [args, re] of [
    [['--core', base.core, '--pid', '1'], /--core reads a core file: it goes without --pid and --dump/],
    [['--core', base.core, '--dump'], /--core reads a core file: it goes without --pid and --dump/],
    [['--pid', '1', '--exe', h.NODE], /--exe goes with --core/],
    [['--core'], /--core needs a value/],
  ]) {
    const r = await h.runV8walk(args);
    assert.strictEqual(r.code, 2, args.join(' '));
    assert.match(oneLine(r.stderr), re);
  }
});

test('[cores] --core --version-info: what v8walk detects in the core', async () => {
  const r = await h.runV8walk(['--core', base.core, '--version-info']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /^V8 module: +\/\S+( \(shared library\))?$/m);
  assert.match(r.stdout, /^target: +Node \d+\.\d+\.\d+ \(V8 [\d.]+\)$/m);
});
