// bpf.test.js — what only the eBPF sampler does (these tests belong to the suite's bpf pass):
// several processes at once, --all-node (found by V8 symbols, not by name), kernel frames, the
// fallback of --mode auto when ptrace is refused, and a clear refusal without privileges.
'use strict';
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const h = require('./harness');

// a system call made from user space, by its kernel frames (outermost first): x86-64's syscall
// entry; arm64's EL0 synchronous exception vector, whose handler calls el0_svc for a system call
// (and el0_da, el0_sve_acc, ... for the other synchronous exceptions: a page fault, the first SVE
// instruction after a system call discarded the thread's SVE state, ...)
const isSyscall = process.arch === 'arm64'
  ? (k) => /^el0t_64_sync/.test(k[0]) && k.some((f) => /^el0_svc/.test(f))
  : (k) => /^entry_SYSCALL_64/.test(k[0]);
// any way in from user space: a system call, an interrupt or an exception (x86-64's asm_sysvec_*,
// asm_common_interrupt, asm_exc_*; arm64's EL0 vectors)
const USER_ENTRY = process.arch === 'arm64' ? /^el0t_64_(sync|irq|fiq|error)/
  : /^(entry_SYSCALL_64|asm_sysvec_|asm_common_interrupt|asm_exc_)/;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-bpf-'));
require('node:test').after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Stacks whose root is process `pid` and that run the hot chain outer → middle → leaf (runs use
// --function: JS frames at their definition lines, which the process reports).
function chainSamples(stacks, pid, truth) {
  const chain = ['outer', 'middle', 'leaf'].map((name) => ({ name, file: truth.file, line: truth.defLines[name] }));
  return stacks.filter((s) => s.frames[0].endsWith(`(${pid})`) && h.hasChain(s.frames, chain))
    .reduce((a, s) => a + s.count, 0);
}

h.modeTest('bpf', 'several --pid: each process is its own root, each with its JS named', async (t) => {
  const a = await h.startFixture('chain.js');
  t.after(() => a.stop());
  const b = await h.startFixture('chain.js');
  t.after(() => b.stop());
  const ticks = [h.cpuTicks(a.pid), h.cpuTicks(b.pid)];
  const r = await h.runV8walk(['--pid', String(a.pid), '--pid', String(b.pid), '--raw', '--function', '--duration', '3']);
  assert.strictEqual(r.code, 0, r.stderr);
  const cpu = [(h.cpuTicks(a.pid) - ticks[0]) / 100, (h.cpuTicks(b.pid) - ticks[1]) / 100];
  const stacks = h.parseFolded(r.stdout);
  // the root is "name (pid)": node's own name, or the name node gives its main thread (Node 24+)
  const roots = new Set(stacks.map((s) => Number(/\((\d+)\)$/.exec(s.frames[0])[1])));
  assert.deepStrictEqual([...roots].sort(), [a.pid, b.pid].sort(), 'one root per process');
  [a, b].forEach((fx, i) => {
    // chain.js spends most of its time in the chain; a loaded machine gives it less CPU
    const n = chainSamples(stacks, fx.pid, fx.ready);
    const want = Math.min(40, h.samplesFloor(cpu[i]));
    assert.ok(n >= want, `process ${fx.pid}: ${n} samples in outer → middle → leaf for ${cpu[i]} s of CPU (want ${want})`);
  });
  assert.match(r.stderr, /2 processes/);
  assert.ok(await a.ping() && await b.ping(), 'both answer');
});

h.modeTest('bpf', '--all-node finds node by its symbols: a renamed node yes, a "node" that is not V8 no', async (t) => {
  const a = await h.startFixture('chain.js');
  t.after(() => a.stop());
  // the same node binary under another name
  const renamed = path.join(tmp, 'my-server');
  fs.copyFileSync(h.NODE, renamed);
  fs.chmodSync(renamed, 0o755);
  const b = await h.startFixture('chain.js', { node: renamed });
  t.after(() => b.stop());
  // a program called node that is not V8
  const fake = path.join(tmp, 'node');
  fs.copyFileSync('/bin/sleep', fake);
  fs.chmodSync(fake, 0o755);
  const sleeper = spawn(fake, ['30'], { stdio: 'ignore' });
  t.after(() => sleeper.kill('SIGKILL'));
  const r = await h.runV8walk(['--all-node', '--raw', '--function', '--duration', '4']);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(r.stdout);
  const na = chainSamples(stacks, a.pid, a.ready), nb = chainSamples(stacks, b.pid, b.ready);
  const seen = [...new Set(stacks.map((s) => s.frames[0]))].join(', ');
  assert.ok(na >= 40, `node (${a.pid}) sampled: ${na} chain samples; processes seen: ${seen}\n${r.stderr}`);
  assert.ok(nb >= 40, `my-server (${b.pid}) sampled: ${nb} chain samples; processes seen: ${seen}\n${r.stderr}`);
  const comm = fs.readFileSync(`/proc/${b.pid}/comm`, 'utf8').trim(); // "my-server", or MainThread
  assert.ok(stacks.some((s) => s.frames[0] === `${comm} (${b.pid})`), `the renamed node is "${comm} (${b.pid})"`);
  assert.ok(!stacks.some((s) => s.frames[0].endsWith(`(${sleeper.pid})`)), 'the fake "node" is not sampled');
});

h.modeTest('bpf', '--kernel: kernel frames below the JS that made the system calls, named from kallsyms', async (t) => {
  const fx = await h.startFixture('syscalls.js');
  t.after(() => fx.stop());
  // on-CPU samples only, to compare with the process's own user and system time over the run
  const before = h.cpuTimes(fx.pid);
  const r = await h.runV8walk(['--pid', String(fx.pid), '--kernel', '--on-cpu', '--raw', '--duration', '3']);
  const after = h.cpuTimes(fx.pid);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(r.stdout);
  const kernelNames = new Set(fs.readFileSync('/proc/kallsyms', 'utf8').split('\n').map((l) => l.split(/\s+/)[2]));
  let withKernel = 0, underWrite = 0, wrapperAbove = 0, viaSyscall = 0, viaAnyEntry = 0, kernelWrite = 0;
  const otherWays = new Map(), notWrapper = new Map(), paths = new Map();
  const tally = (m, key, n) => m.set(key, (m.get(key) || 0) + n);
  for (const s of stacks) {
    const k = s.frames.findIndex((f) => f.endsWith('_[k]'));
    if (k < 0) continue;
    withKernel += s.count;
    // kernel frames are the innermost ones: all of them after every user frame
    assert.ok(s.frames.slice(k).every((f) => f.endsWith('_[k]')), s.frames.join(';'));
    for (const f of s.frames.slice(k))
      assert.ok(kernelNames.has(f.slice(0, -4)), `${f} is a kernel symbol`);
    // under node's write path (writeMany itself may be inlined into node's timer code)
    if (!s.frames.some((f) => /^(node::fs::WriteBuffer|uv_fs_write)$/.test(f))) continue;
    underWrite += s.count;
    const kernel = s.frames.slice(k).map((f) => f.slice(0, -4));
    // glibc's write wrapper (no frame pointer: unwound by CFI over the captured stack) makes the
    // system call; below it, the write path itself (ksys_write, vfs_write) for part of the time
    // only: on this machine's kernel most of a 64-byte write to /dev/null is spent in the system
    // call's own entry and exit work (x86-64: 35 of 65 samples in do_syscall_64's, 28 under
    // ksys_write; in a make check 22 of 57).
    // The rest enter by an interrupt or an exception while in user code under the write, wherever
    // its pc was: the timer's interrupt of a thread that is then preempted runs schedule() in the
    // kernel on its way back, and a loaded machine preempts often (13 of 114 such in a make check,
    // 1 of 255 on an idle machine); on arm64 with SVE (the emulated machine's -cpu max) every
    // system call discards the thread's SVE state, and the next SVE instruction traps to have it
    // back (el0_sve_acc, do_sve_acc): libuv's memcpy of the buffers in uv_fs_write, once per
    // write (72 of 110 samples under the write there).
    const syscall = isSyscall(kernel);
    if (syscall) {
      viaSyscall += s.count;
      if (/write/.test(s.frames[k - 1])) wrapperAbove += s.count;
      else tally(notWrapper, s.frames.slice(Math.max(0, k - 3), k).join(';'), s.count);
    }
    // each way in, by its first frames below the entry (the diagnostic's classes)
    tally(paths, kernel.slice(0, 3).join(' > ') + (syscall ? ' [syscall]' : ''), s.count);
    if (USER_ENTRY.test(kernel[0])) viaAnyEntry += s.count;
    else tally(otherWays, kernel[0], s.count);
    if (kernel.some((f) => /^(ksys|vfs)_write/.test(f))) kernelWrite += s.count;
  }
  const total = stacks.reduce((a, s) => a + s.count, 0);
  // the share of samples in the kernel is the share of its CPU time the process spent there
  const sys = after.system - before.system, user = after.user - before.user;
  const truth = sys / Math.max(1, sys + user), share = withKernel / Math.max(1, total);
  const slack = 0.08 + 4 * Math.sqrt(truth * (1 - truth) / Math.max(1, total));
  t.diagnostic(`samples in the kernel: ${withKernel}/${total} (${(100 * share).toFixed(1)}%); the process's system time: ${(100 * truth).toFixed(1)}% of ${sys + user} ticks`);
  assert.ok(truth >= 0.1, `the fixture spent ${(100 * truth).toFixed(1)}% of its time in the kernel: too little to test`);
  assert.ok(Math.abs(share - truth) <= slack, `${withKernel}/${total} samples in the kernel where the process spent ${(100 * truth).toFixed(1)}% of its CPU time there (±${(100 * slack).toFixed(1)})`);
  assert.ok(underWrite >= withKernel * 0.5, `${underWrite}/${withKernel} kernel samples under fs.writeSync`);
  const classes = [...paths].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, n]) => `${n} × ${f}`).join('; ');
  t.diagnostic(`under fs.writeSync: ${underWrite} kernel samples, ${viaSyscall} in the system call (${wrapperAbove} of them below a write wrapper, ${kernelWrite} in the write path), ${viaAnyEntry - viaSyscall} by an interrupt or exception; entered by: ${classes}`);
  // every kernel stack is whole: its outermost frame is where the kernel was entered from user space
  const others = [...otherWays].map(([f, n]) => `${n} × ${f}`).join(', ');
  assert.ok(viaAnyEntry >= underWrite * 0.97, `${viaAnyEntry}/${underWrite} kernel samples under fs.writeSync begin where the kernel is entered from user space; the others at: ${others}`);
  assert.ok(viaSyscall >= underWrite * 0.25, `${viaSyscall}/${underWrite} kernel samples under fs.writeSync are in the system call`);
  const above = [...notWrapper].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([f, n]) => `${n} × ${f}`).join('\n  ');
  assert.ok(wrapperAbove >= viaSyscall * 0.8, `${wrapperAbove}/${viaSyscall} kernel samples in the system call under fs.writeSync are below a write wrapper; the user frames above the others:\n  ${above}`);
  // the stacks reach the write's own code (a share of it is the machine's: 43-57 % of the system
  // call's samples on x86-64 here, 11-37 % in the emulated arm64 machine, where the entry and exit
  // work take most of a 64-byte write)
  assert.ok(kernelWrite >= 1, `${kernelWrite}/${viaSyscall} of the system call's samples in the kernel's write path`);
  // without --kernel there are none
  const plain = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--duration', '1']);
  assert.strictEqual(plain.code, 0, plain.stderr);
  assert.ok(h.parseFolded(plain.stdout).reduce((a, s) => a + s.count, 0) > 0, 'samples without --kernel');
  assert.ok(!plain.stdout.includes('_[k]'));
});

h.modeTest('bpf', '--mode auto falls back to eBPF when ptrace is refused (already traced), and says so', async (t) => {
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  const tracer = h.startV8walk(['--mode', 'ptrace', '--pid', String(fx.pid), '--raw', '--duration', String(6 * h.WAIT_SCALE)]);
  // once it says it samples (its start-up takes seconds in the emulated arm64 machine)
  await tracer.sampling;
  assert.strictEqual(h.tracerPid(fx.pid), tracer.child.pid);
  const r = await h.runV8walk(['--mode', 'auto', '--pid', String(fx.pid), '--raw', '--function', '--duration', '2']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`ptrace is refused: process ${fx.pid} \\([^)]+\\) is already traced by process ${tracer.child.pid} \\(v8walk\\).*; sampling with eBPF instead`));
  assert.ok(chainSamples(h.parseFolded(r.stdout), fx.pid, fx.ready) >= 20, 'sampled anyway');
  tracer.child.kill('SIGINT');
  assert.strictEqual((await tracer.done).code, 0);
  assert.ok(await fx.ping(), fx.describe());
});

h.modeTest('bpf', 'without privileges: one line naming what eBPF needs', { skip: process.getuid() !== 0 && 'needs root to run v8walk as another user' }, async () => {
  const bin = path.join(tmp, 'v8walk');
  fs.copyFileSync(h.V8WALK, bin);
  fs.chmodSync(tmp, 0o755);
  fs.chmodSync(bin, 0o755);
  const r = spawnSync(bin, ['--mode', 'bpf', '--', '/bin/true'], { uid: 65534, gid: 65534, encoding: 'utf8' });
  assert.strictEqual(r.status, 5, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], /^v8walk: eBPF sampling needs root, or CAP_BPF and CAP_PERFMON.*; run v8walk with sudo, or give it the capabilities: `sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf\+ep (.*)`$/);
  assert.strictEqual(lines[0].match(/\+ep (.*)`$/)[1], bin, 'the setcap line names the binary that ran');
});

h.modeTest('bpf', 'a stack deeper than one sample holds is marked truncated, never padded with invented frames', async (t) => {
  const fx = await h.startFixture('deep.js');
  t.after(() => fx.stop());
  const ticks = h.cpuTicks(fx.pid);
  const r = await h.runV8walk(['--pid', String(fx.pid), '--raw', '--function', '--duration', '2']);
  assert.strictEqual(r.code, 0, r.stderr);
  const cpuSeconds = (h.cpuTicks(fx.pid) - ticks) / 100;
  const { file, lines } = fx.ready;
  let recursing = 0, cut = 0, cutElsewhere = 0;
  for (const s of h.parseFolded(r.stdout)) {
    if (!s.frames.some((f) => h.parseJsFrame(f)?.name === 'down')) continue;
    recursing += s.count;
    const above = s.frames.slice(2); // below the process and thread roots
    if (above[0] !== '[truncated]') continue;
    // from the cut inwards: down … down (leaf, unless inlined), then whatever the leaf runs. The
    // outermost frame kept may be unnamed: its return address was captured, its V8 slots were not.
    const body = above.slice(above[1] === '[unknown] (JIT code)' ? 2 : 1);
    const firstDown = body.findIndex((f) => h.parseJsFrame(f)?.name === 'down');
    if (!h.parseJsFrame(body[0]) || firstDown > 0) {
      // the recursion fitted (caught shallow, on its way down or up): the walk stopped among
      // node's own frames or its JS callers, which must then be the real ones
      for (const f of body.slice(0, firstDown).filter((x) => h.parseJsFrame(x)))
        assert.match(h.parseJsFrame(f).name, /(^|\.)(spin|processImmediate)$/, `a real caller above the recursion, not ${f}`);
      cutElsewhere += s.count;
      continue;
    }
    cut += s.count;
    let lastJs = -1;
    body.forEach((f, i) => { if (h.parseJsFrame(f)) lastJs = i; });
    const js = body.slice(0, lastJs + 1);
    assert.ok(js.length >= 50, `${js.length} frames kept below the cut`);
    for (const f of js) {
      const d = h.parseJsFrame(f);
      assert.ok(d && (d.name === 'down' || d.name === 'leaf') && d.file === file && d.line === lines[d.name],
        `only the recursion below the cut, not ${f}`);
    }
  }
  const want = Math.min(50, h.samplesFloor(cpuSeconds));
  assert.ok(recursing >= want, `${recursing} samples in the recursion for ${cpuSeconds} s of CPU (want ${want})`);
  assert.ok(cut >= recursing * 0.8, `${cut}/${recursing} cut inside the recursion`);
  assert.ok(cutElsewhere <= recursing * 0.05, `${cutElsewhere}/${recursing} cut elsewhere`);
  assert.match(r.stderr, /deeper than one eBPF sample holds/);
});
