// native_symbols.js — the symbols of an ELF file as binutils' nm lists them (its symbol table, its
// dynamic symbol table, and the detached debug symbols /usr/lib/debug/.build-id/xx/….debug that
// Debian's -dbg packages install for it), for tests/e2e/native_agreement.js to settle a name that
// v8walk and libunwind give differently: which symbol holds a pc, and how large a symbol is.
// Names are demangled as v8walk shows them (no parameter lists).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

// "ns::f(int) const" → "ns::f"; "f() [clone .cold]" → "f [clone .cold]"
function withoutParams(name) {
  const clone = / \[clone [^\]]*\]$/.exec(name);
  let s = clone ? name.slice(0, clone.index) : name;
  s = s.replace(/ const$/, '');
  if (!s.endsWith(')')) return name;
  let depth = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    if (s[i] === ')') depth++;
    else if (s[i] === '(' && --depth === 0) return s.slice(0, i) + (clone ? clone[0] : '');
  }
  return name;
}

// [{addr, size, name (mangled), shown (demangled, no parameters)}] of `nm ARGS FILE` (defined symbols)
function nmList(args, file) {
  let text;
  try {
    text = execFileSync('nm', [...args, '--defined-only', '-S', file], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch { return []; }
  let shown = [];
  try {
    shown = execFileSync('nm', [...args, '--defined-only', '-S', '-C', file], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n');
  } catch { /* names as they are */ }
  const out = [];
  text.split('\n').forEach((line, i) => {
    const m = /^([0-9a-f]+) ([0-9a-f]+) [tTwWiI] (.+)$/.exec(line) || /^([0-9a-f]+)() [tTwWiI] (.+)$/.exec(line);
    if (!m) return;
    const d = /^[0-9a-f]+ (?:[0-9a-f]+ )?[tTwWiI] (.+)$/.exec(shown[i] || '');
    // (a dynamic symbol's version, "@@GLIBC_2.3.3", is not part of its name)
    const bare = (n) => n.replace(/@.*$/, '');
    out.push({ addr: parseInt(m[1], 16), size: m[2] ? parseInt(m[2], 16) : 0, name: bare(m[3]), shown: withoutParams(bare(d ? d[1] : m[3])) });
  });
  return out;
}

function debugFileOf(file) {
  try {
    const notes = execFileSync('readelf', ['-n', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const id = /Build ID: ([0-9a-f]+)/.exec(notes);
    if (!id) return null;
    const dbg = `/usr/lib/debug/.build-id/${id[1].slice(0, 2)}/${id[1].slice(2)}.debug`;
    return fs.existsSync(dbg) ? dbg : null;
  } catch { return null; }
}

// [{off, vaddr, filesz}] of the file's loadable segments (readelf -lW)
function loadSegments(file) {
  let text = '';
  try { text = execFileSync('readelf', ['-lW', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }); } catch { return []; }
  return text.split('\n').map((l) => /^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)/.exec(l))
    .filter(Boolean).map((m) => ({ off: parseInt(m[1], 16), vaddr: parseInt(m[2], 16), filesz: parseInt(m[3], 16) }));
}

// the names (as v8walk shows them) of the symbols of a file's tables `t` that hold address addr
function holders(t, addr) {
  return t.all.filter((x) => x.size > 0 && addr >= x.addr && addr < x.addr + x.size).map((x) => x.shown);
}

function symbolTables() {
  const files = new Map();
  const load = (file) => {
    if (!files.has(file)) {
      const own = [...nmList([], file), ...nmList(['-D'], file)];
      const dbg = debugFileOf(file);
      const all = dbg ? [...own, ...nmList([], dbg)] : own;
      files.set(file, { own, all, segments: loadSegments(file) });
    }
    return files.get(file);
  };
  return {
    // the size of symbol `name` in file's own tables (what libunwind reads), or null; a name
    // that several versions of a symbol share at different addresses (timer_settime@GLIBC_2.2.5
    // and @@GLIBC_2.34) is as large as the smallest of them
    size(file, name) {
      const same = load(file).own.filter((x) => x.name === name);
      return same.length ? Math.min(...same.map((x) => x.size)) : null;
    },
    // does the file's own tables hold a symbol shown as `shown` with no size (an assembler
    // function without .size, as V8's PushAllRegistersAndIterateStack in Node 22)?
    sizeless(file, shown) {
      return load(file).own.some((x) => x.shown === shown && x.size === 0);
    },
    // the names (as v8walk shows them: aliases, e.g. __clone3 and __GI___clone3, are one
    // function) of the symbols that hold the address `off` past symbol `name`'s start; null when
    // `name` is not in the file
    // (past each symbol of that name: which of them libunwind counted from, it does not say)
    at(file, name, off) {
      const t = load(file);
      const same = t.own.filter((x) => x.name === name);
      if (!same.length) return null;
      return same.flatMap((s) => holders(t, s.addr + off));
    },
    // the names of the symbols that hold file offset `off` (its address through the loadable
    // segment that maps it; every name when no segment does, so that nothing passes unchecked)
    atFileOffset(file, off) {
      const t = load(file);
      const seg = t.segments.find((s) => off >= s.off && off < s.off + s.filesz);
      if (!seg) return ['(no loadable segment holds the offset)'];
      return holders(t, seg.vaddr + (off - seg.off));
    },
  };
}

module.exports = { symbolTables, withoutParams };
