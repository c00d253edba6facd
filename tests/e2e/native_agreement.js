// native_agreement.js — the comparison of tests/e2e/native_frames.test.js: v8walk's native frames
// against libunwind-ptrace's, both taken at one stop of one thread (build/libunwind-compare, one
// JSON line per stop). Two runs of native frames are compared, pc by pc and name by name:
//   top:    from the innermost frame to the first frame in V8's code (JIT code or a builtin), and
//           that frame's pc (the return address into V8's code, which the last native frame's CFI
//           gives);
//   bottom: from the outermost V8 frame (the entry frame, where JavaScript was entered from C++) to
//           the end of the stack (_start, or the thread's start routine);
// a stack with no V8 frame (a worker thread, a main thread before or between JavaScript) is one
// run, compared whole. libunwind steps through V8's frames by the frame-pointer chain, so its
// bottom run is found the same way v8walk's is: the frames after its last frame in V8's code.
// A name may differ for one reason that is libunwind's: for a pc in no symbol's extent (a static
// function of a stripped library, e.g. libc's __libc_start_call_main) libunwind gives the nearest
// symbol before the pc, which does not hold it; v8walk says "[unknown] (module+0xOFF)". Such a
// frame counts as agreeing when the symbol libunwind named ends before the pc (symbolSize: the
// symbol's size in the file's symbol tables), or has no size there (_init before a PLT stub) and
// no symbol holds the pc.
//
// On arm64 libunwind (1.8.1, src/aarch64/Gstep.c: unw_step) has limits of its own, which the
// comparison states (counted apart) rather than counts as differences:
//   - where it has no unwind information for a frame (V8's code; V8's hand-written
//     PushAllRegistersAndIterateStack, which every collection passes through) it falls back to the
//     frame record get_frame_state finds from the instructions around the pc, or to the link
//     register: that gives the caller's pc at best (the link register is the return address of
//     the innermost frame only; PushAllRegistersAndIterateStack's caller came out as itself) but
//     not the registers the caller's CFI needs, and the stack ends a frame or two later or goes
//     on through stale stack. v8walk's frames past such a frame of libunwind's (not the innermost)
//     are not compared (pastReach; for a stack with V8 frames, its bottom run: bottomUnreached) —
//     the frames up to it are. Nor those past the caller of an innermost function without unwind
//     information that has pushed its frame record (fp = sp, lr the record's: Debian's OpenSSL
//     sha512_block_armv8 under SHA512_Final): the fallback takes lr for the caller but leaves sp
//     16 bytes low, and the caller's CFI then reads the callee's record as its own (SHA512_Final
//     came out as its own caller, then stale stack); the registers of each stop are in its line;
//   - it names no pc of a symbol without a size (Node 22's PushAllRegistersAndIterateStack has
//     none): v8walk's name there agrees when the file's tables hold it without a size;
//   - it ends a stack where the caller's x29 is 0, the AAPCS64 end of the frame-record chain, so
//     a thread's outermost function, which sets x29 to 0 before it calls (glibc's thread_start in
//     clone3.S, _start), is not a frame of its: v8walk's frame there (the return address into it;
//     x86-64's libunwind has it too) is counted in outermostLeftOut when it is v8walk's last frame,
//     the only one more, and libunwind's stack ended cleanly.
'use strict';

const isNative = (kind, name) => kind === 'native' || (kind === 'unknown' && !name.includes('JIT code'));

// v8walk's native runs of one stop: {whole, top, firstV8, lastV8, bottom} (frames [pc, kind, name]);
// a stack without V8 frames is one run (whole, in top).
function runs(stop) {
  const ours = stop.v8walk.filter((f) => f[1] !== 'truncated');
  const firstV8 = ours.findIndex((f) => !isNative(f[1], f[2]));
  if (firstV8 < 0) return { whole: true, top: ours, bottom: [] };
  let lastV8 = ours.length - 1;
  while (isNative(ours[lastV8][1], ours[lastV8][2])) lastV8--;
  return { whole: false, top: ours.slice(0, firstV8), firstV8: ours[firstV8], lastV8: ours[lastV8], bottom: ours.slice(lastV8 + 1) };
}

// Does v8walk's frame f name what libunwind's frame g names (the same pc)? 'yes', 'no', or
// 'libunwind' when libunwind's symbol does not hold the pc (syms.size: its size in the file's
// symbol tables; libunwind's offset is the pc's from its start) and v8walk's name is the symbol
// that does (syms.at: from the file's tables and its detached debug symbols; any of its
// aliases), or "[unknown]" where none does.
function sameName(f, g, syms) {
  if (f[2] === g[1]) return 'yes';
  // libunwind named nothing (a pc in no symbol and before every one of the file's: a PLT stub):
  // the same answer as v8walk's "[unknown] (module+0xOFF)" when no symbol holds that file offset
  const unknown = /^\[unknown\] \(.*\+0x([0-9a-f]+)\)$/.exec(f[2]);
  const inNoSymbol = () => syms.atFileOffset(g[4], parseInt(unknown[1], 16)).length === 0;
  if (!g[1] && !g[2] && unknown && g[4]) return inNoSymbol() ? 'yes' : 'no';
  // libunwind named nothing where v8walk names a symbol that has no size in the file's tables
  // (libunwind looks a pc up in the symbols' extents only)
  if (!g[1] && !g[2] && !unknown && g[4] && syms.sizeless(g[4], f[2])) return 'libunwind';
  if (!g[2] || !g[4]) return 'no';
  const size = syms.size(g[4], g[2]);
  // a symbol without an extent in the file's tables (size 0: _init, which a PLT stub follows):
  // libunwind's nearest symbol before the pc, which holds nothing
  if (size === null) return unknown && inNoSymbol() ? 'libunwind' : 'no';
  if (g[3] < size) return 'no';
  const holders = syms.at(g[4], g[2], g[3]) || [];
  return (holders.length === 0 && f[2].startsWith('[unknown]')) || holders.includes(f[2]) ? 'libunwind' : 'no';
}

const hex = (x) => `0x${Number(x).toString(16)}`;

// A stop whose frames differ, as both unwound it: the registers, the frame record at fp, and the
// first frames of each.
function stopText(s) {
  const [pc, sp, fp, lr, fp0, fp8] = (s.regs || []).map(hex);
  const ours = s.v8walk.slice(0, 6).map((f) => `${hex(f[0])} ${f[2]}`).join(', ');
  const theirs = s.libunwind.slice(0, 6).map((g) => `${hex(g[0])} ${g[1] || g[2] || '?'}${g[5] ? '' : ' (no unwind info)'}`).join(', ');
  return `pc ${pc} sp ${sp} fp ${fp} lr ${lr}, [fp] ${fp0} [fp+8] ${fp8}; v8walk: ${ours}; libunwind: ${theirs}`;
}

// Are the registers a stop was unwound from those of a function that pushed its frame record and
// points fp at it: fp = sp, and the record's return address is lr (below pointer authentication's
// bits; JSON's numbers keep 53 bits, so a signed value does not compare equal and the rule holds
// back)?
function leafPushedRecord(regs) {
  if (!regs) return false;
  const [, sp, fp, lr, , fp8] = regs;
  const low = (x) => x % 2 ** 48;
  return fp !== 0 && fp === sp && lr !== 0 && low(fp8) === low(lr);
}

// Compare one stop: {frames, agree, libunwinds, bottomUnreached, pastReach, outermostLeftOut,
// disagreements: [text]}. Frames are paired by position: the top run from the innermost frame, the
// bottom run from the outermost, and the frame past each run (the first V8 frame; the outermost
// V8 frame) by its pc, which libunwind found through the same native frames. arch: the machine's
// (process.arch), for libunwind's arm64 limits above.
function compareStop(stop, syms, arch = process.arch) {
  const r = runs(stop);
  let theirs = stop.libunwind;
  const out = { frames: 0, agree: 0, libunwinds: 0, bottomUnreached: 0, pastReach: 0, outermostLeftOut: 0, disagreements: [] };
  const arm64 = arch === 'arm64';
  const pair = (where, f, g) => {
    out.frames++;
    if (!g) { out.disagreements.push(`${where}: libunwind has no frame for v8walk's ${f[2]} at ${hex(f[0])}`); return; }
    if (f[0] !== g[0]) { out.disagreements.push(`${where}: pc ${hex(f[0])} (${f[2]}) against libunwind's ${hex(g[0])} (${g[1] || '?'})`); return; }
    const s = sameName(f, g, syms);
    if (s === 'no') { out.disagreements.push(`${where}: at ${hex(f[0])} v8walk names ${f[2]}, libunwind ${g[1] || '(nothing)'}+${g[3]}`); return; }
    if (s === 'libunwind') out.libunwinds++;
    out.agree++;
  };
  const pcOnly = (where, f, g) => {
    out.frames++;
    if (g && g[0] === f[0]) out.agree++;
    else out.disagreements.push(`${where}: v8walk's ${f[2]} at ${hex(f[0])}, libunwind's frame there ${g ? `at ${hex(g[0])}` : 'missing'}`);
  };
  const ours = r.whole ? r.top : r.bottom;
  // libunwind's stack ended cleanly ("end") at v8walk's last frame but one
  const shortByOutermost = arm64 && stop.end === 'end' && ours.length >= 2 && theirs.length > 0 &&
    theirs[theirs.length - 1][0] === ours[ours.length - 2][0];
  if (r.whole && shortByOutermost) {
    out.outermostLeftOut++;
    r.top = r.top.slice(0, -1);
  }
  // libunwind's stack ends inside the top run (or the whole stack), past a frame it had no unwind
  // information for; or it goes on from such a frame that is not the innermost (where its
  // fallback's guess takes the link register, which only the innermost frame may still hold): its
  // frames after that one are compared no further
  const guessed = theirs.findIndex((g, i) => i >= 1 && i < r.top.length && g[5] === 0);
  let reach = arm64 && guessed >= 0 ? guessed + 1 : theirs.length;
  // and past the caller of an innermost function without unwind information that has pushed its
  // frame record (above: libunwind's fallback leaves sp 16 bytes low)
  if (arm64 && theirs.length > 2 && theirs[0][5] === 0 && leafPushedRecord(stop.regs)) reach = Math.min(reach, 2);
  const topCut = arm64 && reach < r.top.length && theirs.some((g) => g[5] === 0);
  if (topCut) {
    out.pastReach += r.top.length - reach;
    r.top = r.top.slice(0, reach);
    theirs = theirs.slice(0, reach);
  }
  if (topCut && !r.whole) {
    out.bottomUnreached++;
    r.top.forEach((f, i) => pair('top', f, theirs[i]));
    return out;
  }
  if (!r.whole && arm64 && theirs.length < r.top.length + 1 + r.bottom.length) {
    // libunwind ended in V8's code: the bottom run is not reached
    out.bottomUnreached++;
    r.bottom = [];
    theirs = theirs.slice(0, r.top.length + 1);
  } else if (!r.whole && shortByOutermost) {
    out.outermostLeftOut++;
    r.bottom = r.bottom.slice(0, -1);
  }
  r.top.forEach((f, i) => pair(r.whole ? 'stack' : 'top', f, theirs[i]));
  if (r.whole) {
    if (theirs.length > r.top.length) out.disagreements.push(`stack: libunwind has ${theirs.length - r.top.length} frames more (${theirs.slice(r.top.length).map((g) => g[1] || hex(g[0])).join(' < ')}) than v8walk's ${r.top.length} (${r.top.map((f) => `${f[2]} ${hex(f[0])}`).join(' < ')}), which ended: ${stop.v8walkEnd || 'not said'}`);
    return out;
  }
  pcOnly('the first V8 frame', r.firstV8, theirs[r.top.length]);
  if (out.bottomUnreached) return out;
  const base = theirs.length - r.bottom.length;
  r.bottom.forEach((f, i) => pair('bottom', f, base + i >= 0 ? theirs[base + i] : null));
  pcOnly('the outermost V8 frame', r.lastV8, base - 1 >= 0 ? theirs[base - 1] : null);
  return out;
}

module.exports = { compareStop, runs, stopText };
