// native_frames.test.js — v8walk's native frames against libunwind-ptrace's, at the same stop:
// build/libunwind-compare (tests/native/libunwind_compare.c) stops each thread of a real node
// process in turn and, while the thread is held, unwinds it with libunwind and with v8walk's own
// walker (build/libv8walk.a) from the same registers. The process (fixtures/native_work.js) keeps
// its threads in native code: the main thread in a synchronous file read, zlib, a key derivation,
// the collector and the event loop's poll, the thread pool and V8's workers in theirs. The native
// frames — innermost to the first V8 frame, the outermost V8 frame to the end, a whole stack
// without V8 frames — must be the same pcs with the same names (tests/e2e/native_agreement.js;
// where libunwind names a pc by the nearest symbol before it, which does not hold it, the symbol
// that holds it must be v8walk's name). On arm64 what libunwind cannot reach there is counted
// apart and said (native_agreement.js). Runs in the ptrace pass (nothing here samples).
'use strict';
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const os = require('node:os');
const h = require('./harness');
const { compareStop, runs, stopText } = require('./native_agreement');
const { symbolTables } = require('./native_symbols');

// built beside the v8walk under test (build/, build/arm64/ for the emulated arm64 machine)
const COMPARE = path.join(path.dirname(h.V8WALK), 'libunwind-compare');
const ROUNDS = 25;
const INTERVAL_MS = 40;
const MIN_STOPS = 60;

function compareRun(pid) {
  return new Promise((resolve) => {
    const child = spawn(COMPARE, [String(pid), String(ROUNDS), String(INTERVAL_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

h.modeTest('ptrace', "native frames: v8walk's match libunwind's at the same stop (pcs and names, innermost to the first V8 frame and the entry frame to the end)", async (t) => {
  assert.ok(fs.existsSync(COMPARE), `${COMPARE} is built by \`make test-e2e\` (make ${path.relative(h.ROOT, COMPARE)})`);
  const fx = await h.startFixture('native_work.js');
  t.after(() => fx.stop());
  // (the file it reads, which its exit handler removes when it exits, not when it is killed)
  t.after(() => fs.rmSync(path.join(os.tmpdir(), `v8walk-native-work-${fx.pid}.bin`), { force: true }));
  await h.sleep(1500); // past start-up: the cycle runs, the thread pool and V8's workers exist
  const r = await compareRun(fx.pid);
  assert.strictEqual(r.code, 0, `libunwind-compare exited with ${r.code}: ${r.err.trim()}`);
  const stops = r.out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const walked = stops.filter((s) => s.v8walk);
  assert.ok(walked.length >= MIN_STOPS, `${walked.length} stops walked by both (at least ${MIN_STOPS})`);
  const syms = symbolTables();
  let frames = 0, agree = 0, libunwinds = 0, mainInNative = 0, withV8 = 0, bottomUnreached = 0, pastReach = 0, outermostLeftOut = 0;
  const disagreements = [], stopsApart = [];
  for (const s of walked) {
    const c = compareStop(s, syms);
    frames += c.frames;
    agree += c.agree;
    libunwinds += c.libunwinds;
    bottomUnreached += c.bottomUnreached;
    pastReach += c.pastReach;
    outermostLeftOut += c.outermostLeftOut;
    const run = runs(s);
    if (s.tid === fx.pid && run.top.length > 0) mainInNative++;
    if (!run.whole) withV8++;
    for (const d of c.disagreements) disagreements.push(`thread ${s.tid} (${s.comm}) ${d}`);
    if (c.disagreements.length) stopsApart.push(`thread ${s.tid} (${s.comm}) stop: ${stopText(s)}`);
  }
  const rate = frames ? agree / frames : 0;
  t.diagnostic(`${h.nodeVersion()}: ${walked.length} stops (${withV8} with V8 frames, the main thread in native code ${mainInNative}×), ` +
    `${frames} native frames compared, ${agree} agree (${(100 * rate).toFixed(2)} %; ${libunwinds} of them named by libunwind from the nearest symbol before the pc)` +
    (process.arch === 'arm64' ? `; past libunwind's reach (arm64: tests/e2e/native_agreement.js): the bottom run of ${bottomUnreached} of the ${withV8} stops with V8 frames, ` +
      `${pastReach} frames after a function it has no unwind information for, the outermost frame of ${outermostLeftOut} stacks` : ''));
  assert.ok(mainInNative >= 5, `the main thread was stopped in native code ${mainInNative}× of ${ROUNDS} rounds`);
  assert.ok(withV8 >= 5, `${withV8} stops had V8 frames`);
  if (process.arch !== 'arm64')
    assert.ok(withV8 - bottomUnreached >= 5, `${withV8 - bottomUnreached} stops had their bottom run compared`);
  assert.deepStrictEqual([...disagreements.slice(0, 20), ...stopsApart.slice(0, 5)], [],
    `${disagreements.length} native frames differ from libunwind's, in ${stopsApart.length} stops`);
});
