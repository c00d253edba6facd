// corekit.js — helpers for the core-file tests: produce real cores (kernel cores of a fixture that
// dies in its own fresh directory under `ulimit -c unlimited`; gdb's gcore of a live process), read
// a core's ELF layout (program headers, threads, mapped files) to damage copies of it on purpose,
// parse node's own stack printouts, and compare v8walk's JavaScript frames with ground truth.
'use strict';
const assert = require('node:assert');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const FIXTURE = path.join(h.FIXTURES, 'postmortem.js');

// A fresh directory under /tmp, removed (with any core in it) when the test ends.
function tempDir(t, tag) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `v8walk-${tag}-`));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Run the postmortem fixture until it dies; the kernel writes `core` into its directory.
// Returns {dir, core, truth, stderr, code, signal}; truth is the fixture's last words.
function crashFixture(t, mode, { nodeArgs = [], node = h.NODE, dir } = {}) {
  dir = dir || tempDir(t, `core-${mode}`);
  const args = ['-c', 'ulimit -c unlimited; exec "$0" "$@"', node, ...nodeArgs, FIXTURE, mode];
  return new Promise((resolve, reject) => {
    const child = spawn('sh', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...h.NODE_ENV } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('{"truth"'));
      if (!line) return reject(new Error(`fixture ${mode} left no truth (code ${code}, signal ${signal}):\n${stderr}`));
      const core = path.join(dir, 'core');
      if (!fs.existsSync(core)) return reject(new Error(`fixture ${mode} left no core (code ${code}, signal ${signal})`));
      resolve({ dir, core, truth: JSON.parse(line), stderr, code, signal });
    });
  });
}

// gdb's gcore of a live process; returns the core's path.
function gcore(pid, dir) {
  const base = path.join(dir, 'gcore');
  const r = spawnSync('gcore', ['-o', base, String(pid)], { encoding: 'utf8', timeout: 120000 });
  const file = `${base}.${pid}`;
  assert.ok(fs.existsSync(file), `gcore wrote no core: ${r.stderr}`);
  return file;
}

// v8walk --core … --json; resolves {code, stderr, dump (parsed, or null)}.
async function coreJson(args) {
  const r = await h.runV8walk([...args, '--json']);
  let dump = null;
  if (r.code === 0 || r.code === 3) dump = JSON.parse(r.stdout);
  return { code: r.code, signal: r.signal, stderr: r.stderr, dump };
}

// "name (file:line:col)" or "file:line:col" → {name, file, line, col}
function parseLocation(s) {
  let m = /^(.*) \((.*):(\d+):(\d+)\)$/.exec(s);
  if (m) return { name: m[1], file: m[2], line: +m[3], col: +m[4] };
  m = /^(.*):(\d+):(\d+)$/.exec(s);
  return m ? { name: '(anonymous)', file: m[1], line: +m[2], col: +m[3] } : null;
}

// node's own stack printouts on stderr: the "Native stack trace" (return addresses) and
// "JavaScript stack trace" (Node ≥ 20) of node::Abort, and V8's "FROM" block for
// --abort-on-uncaught-exception. null when absent or empty.
function nodeStacks(stderr) {
  // Node 18 prints V8's FROM frames with no newline between them: "a (f:1:2)b (f:3:4)"
  const lines = stderr.split('\n').flatMap((l) => l.split(/(?<=:\d+\))(?=\S)/));
  const block = (start, pick) => {
    const i = lines.findIndex((l) => l.trim() === start);
    if (i < 0) return null;
    const out = [];
    for (const l of lines.slice(i + 1)) {
      if (l.trim() === '' && out.length) break;
      const loc = pick(l.trim());
      if (loc) out.push(loc);
      else if (l.trim() !== '') break;
    }
    return out.length ? out : null;
  };
  const frameAt = (l) => { const m = /^\d+: (0x[0-9a-f]+)/.exec(l); return m ? { pc: m[1] } : null; };
  // Node ≤ 18 prints the native frames without a header
  const bare = lines.filter((l) => frameAt(l.trim())).map((l) => frameAt(l.trim()));
  return {
    nativeTrace: block('----- Native stack trace -----', frameAt) || (bare.length ? bare : null),
    abortTrace: block('----- JavaScript stack trace -----',
      (l) => { const m = /^\d+: (.*)$/.exec(l); return m ? parseLocation(m[1]) : null; }),
    fromTrace: block('FROM', parseLocation),
  };
}

// A function's own name as V8's stack formats vary it: "Timeout.crashOuter [as _onTimeout]",
// "process.processTimers" → "crashOuter", "processTimers".
function shortName(name) {
  return name.replace(/ \[as [^\]]*\]$/, '').replace(/^(async|new) /, '').split('.').pop();
}

function jsFrames(thread) {
  return thread.frames.filter((f) => f.kind === 'js' || f.kind === 'inlined');
}

// v8walk's JS frames must be the truth's frames: same functions, same files, same order (from
// frame `from` on: see checkPositions).
function assertSameJs(frames, truth, what, from = 0) {
  assert.strictEqual(frames.length, truth.length, `${what}: as many frames`);
  assert.deepStrictEqual(frames.slice(from).map((f) => `${shortName(f.name)} @ ${f.file}`),
    truth.slice(from).map((f) => `${shortName(f.name)} @ ${f.file}`), what);
}

// The crashed thread's JS frames against the fixture's Error.stack, taken from the same call
// expression just before it died: the innermost frame is the callee, the crash function (MODE)
// here and the truth-taker there; every frame from the caller out must match.
function assertCrashedJs(frames, truth, mode, what) {
  assert.strictEqual(shortName(frames[0].name), mode, `${what}: the crash function innermost`);
  assertSameJs(frames, truth, what, 1);
}

// Positions of frames in the fixture's file against the truth, frame by frame (line and column,
// 1-based as Error.stack prints them). `from` skips the innermost frames (the fixture's truth and
// its crash or park are two different callees called from one call expression).
function checkPositions(frames, truth, fx, what, from = 1) {
  let compared = 0;
  frames.forEach((f, i) => {
    if (i < from || f.file !== fx.file) return;
    assert.deepStrictEqual(`${shortName(f.name)} ${f.line}:${f.column}`,
      `${shortName(truth[i].name)} ${truth[i].line}:${truth[i].col}`, `${what}: frame ${i}`);
    compared++;
  });
  assert.ok(compared >= 3, `${what}: ${compared} frames of the fixture compared`);
  return compared;
}

// Where a thread's stack pointer is in NT_PRSTATUS (struct elf_prstatus: pr_reg at 112), by the
// core's e_machine: x86-64's user_regs_struct has rsp at index 19, arm64's user_pt_regs x0-x30
// then sp.
const SP_IN_PRSTATUS = { 62: 112 + 19 * 8, 183: 112 + 31 * 8 };

// The ELF layout of a core: program headers, threads (tid, sp) and mapped files.
function readLayout(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const read = (off, len) => { const b = Buffer.alloc(len); fs.readSync(fd, b, 0, len, off); return b; };
    const eh = read(0, 64);
    const phoff = Number(eh.readBigUInt64LE(0x20)), phnum = eh.readUInt16LE(0x38);
    const spAt = SP_IN_PRSTATUS[eh.readUInt16LE(0x12)];
    assert.ok(spAt, `a core of machine ${eh.readUInt16LE(0x12)} (x86-64 and arm64 are known)`);
    const phdrs = [], threads = [], files = [];
    for (let i = 0; i < phnum; i++) {
      const p = read(phoff + i * 56, 56);
      phdrs.push({ index: i, at: phoff + i * 56, type: p.readUInt32LE(0), flags: p.readUInt32LE(4),
        offset: Number(p.readBigUInt64LE(8)), vaddr: p.readBigUInt64LE(16),
        filesz: Number(p.readBigUInt64LE(32)), memsz: p.readBigUInt64LE(40) });
    }
    for (const ph of phdrs.filter((x) => x.type === 4)) {
      const notes = read(ph.offset, ph.filesz);
      for (let off = 0; off + 12 <= notes.length;) {
        const namesz = notes.readUInt32LE(off), descsz = notes.readUInt32LE(off + 4), type = notes.readUInt32LE(off + 8);
        const desc = off + 12 + ((namesz + 3) & ~3);
        if (type === 1) threads.push({ tid: notes.readInt32LE(desc + 32), sp: notes.readBigUInt64LE(desc + spAt) });
        if (type === 0x46494c45) {
          const count = Number(notes.readBigUInt64LE(desc)), page = notes.readBigUInt64LE(desc + 8);
          const names = notes.subarray(desc + 16 + count * 24, desc + descsz).toString('latin1').split('\0');
          for (let k = 0; k < count; k++) {
            const e = desc + 16 + k * 24;
            files.push({ start: notes.readBigUInt64LE(e), end: notes.readBigUInt64LE(e + 8),
              pgoff: notes.readBigUInt64LE(e + 16) * page, path: names[k] });
          }
        }
        off = desc + ((descsz + 3) & ~3);
      }
    }
    return { phdrs, loads: phdrs.filter((x) => x.type === 1), threads, files };
  } finally {
    fs.closeSync(fd);
  }
}

// A sparse copy of a core.
function copyCore(src, dst) {
  const r = spawnSync('cp', ['--sparse=always', src, dst]);
  assert.strictEqual(r.status, 0, `cp ${src}: ${r.stderr}`);
  return dst;
}

// Set a program header's p_filesz (as if the writer had left the segment out).
function setFilesz(file, ph, filesz) {
  const fd = fs.openSync(file, 'r+');
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(filesz));
  fs.writeSync(fd, b, 0, 8, ph.at + 32);
  fs.closeSync(fd);
}

// The GNU build-id of an ELF file, by readelf.
function buildId(file) {
  const r = spawnSync('readelf', ['-n', file], { encoding: 'utf8' });
  const m = /Build ID: ([0-9a-f]+)/.exec(r.stdout);
  assert.ok(m, `no build-id in ${file}`);
  return m[1];
}

module.exports = {
  FIXTURE, tempDir, crashFixture, gcore, coreJson, nodeStacks, shortName, jsFrames, assertSameJs,
  assertCrashedJs, checkPositions, readLayout, copyCore, setFilesz, buildId,
};
