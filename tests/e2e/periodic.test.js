// periodic.test.js — profiles that keep flowing while sampling goes on: SIGUSR1 writes the profile
// so far to -o (sampling continues, and the final profile holds every sample), and --period cuts
// the run into one file per period (-o with %n and strftime fields), each a valid profile read by
// its own reader (folded parsed, pprof by go tool pprof), whose samples add up to the run's total
// as v8walk's summary counts it. No temporary file is left behind.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const c = require('./consumers');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-periodic-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const total = (file) => h.parseFolded(fs.readFileSync(file, 'utf8')).reduce((s, x) => s + x.count, 0);
// the sample count of v8walk's summary line
function summarySamples(stderr) {
  const m = /v8walk: (\d+) samples in /.exec(stderr);
  assert.ok(m, `a summary line in:\n${stderr}`);
  return Number(m[1]);
}
// wait until `file` exists with a different modification than `before` (ms)
async function changed(file, before, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && st.mtimeMs !== before) return st.mtimeMs;
    if (Date.now() > end) throw new Error(`${file} was not written within ${ms} ms`);
    await h.sleep(50);
  }
}
const leftovers = (dir) => fs.readdirSync(dir).filter((f) => f.startsWith('.'));

h.firstNodeTest('SIGUSR1 writes the profile so far to -o; sampling goes on and the final profile has every sample', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'usr1-'));
  const out = path.join(dir, 'so-far.folded');
  const fx = await h.startFixture('chain.js');
  const v = h.startV8walk(['--pid', String(fx.pid), '-o', out]);
  try {
    await h.sleep(2500);
    v.child.kill('SIGUSR1');
    const t1 = await changed(out, undefined);
    const first = total(out);
    assert.ok(first > 0, `the first snapshot has samples (${first})`);
    await h.sleep(1500);
    v.child.kill('SIGUSR1');
    await changed(out, t1);
    const second = total(out);
    assert.ok(second > first, `the second snapshot has more samples than the first (${second} > ${first}): sampling went on`);
    assert.strictEqual(v.child.exitCode, null, 'v8walk still runs after SIGUSR1');
    v.child.kill('SIGINT');
    const r = await v.done;
    assert.strictEqual(r.code, 0, r.stderr);
    const last = total(out);
    assert.ok(last >= second, `the final profile holds the snapshots' samples (${last} >= ${second})`);
    assert.strictEqual(last, summarySamples(r.stderr), 'the final profile holds every sample');
    assert.match(r.stderr, /SIGUSR1: wrote the profile so far/);
    assert.deepStrictEqual(leftovers(dir), [], 'no temporary file left');
  } finally {
    fx.stop();
  }
});

h.firstNodeTest('--period: one folded and one pprof file per period (%n, strftime); their samples add up to the run', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'period-'));
  const fx = await h.startFixture('chain.js');
  const r = await h.runV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '4.5',
    '-o', path.join(dir, 'p-%n-%Y%m%d.folded'), '-o', path.join(dir, 'p-%n.pb.gz')]);
  fx.stop();
  assert.strictEqual(r.code, 0, r.stderr);
  const day = new Date();
  const ymd = `${day.getFullYear()}${String(day.getMonth() + 1).padStart(2, '0')}${String(day.getDate()).padStart(2, '0')}`;
  const folded = fs.readdirSync(dir).filter((f) => f.endsWith('.folded')).sort((a, b) => parseInt(a.slice(2)) - parseInt(b.slice(2)));
  // 4.5 s in periods of 1 s: four whole periods and the last half one (5 files; a loaded machine
  // may start the run late, so at least 4)
  assert.ok(folded.length >= 4 && folded.length <= 5, `files: ${folded.join(' ')}`);
  folded.forEach((f, i) => assert.match(f, new RegExp(`^p-${i + 1}-(${ymd}|\\d{8})\\.folded$`), 'named by %n and %Y%m%d'));
  const counts = folded.map((f) => total(path.join(dir, f)));
  const sum = counts.reduce((a, b) => a + b, 0);
  assert.strictEqual(sum, summarySamples(r.stderr), `the periods' samples (${counts.join(' + ')}) add up to the run's`);
  assert.ok(counts.slice(0, -1).every((n) => n > 0), `every whole period has samples: ${counts.join(' ')}`);
  for (let i = 1; i <= folded.length; i++) {
    const pb = path.join(dir, `p-${i}.pb.gz`);
    assert.strictEqual(c.pprofTop(pb).total, counts[i - 1], `${path.basename(pb)}: go tool pprof reads the period's samples`);
  }
  assert.deepStrictEqual(leftovers(dir), [], 'no temporary file left');
});

test('--period needs an -o name with a field', async () => {
  const r = await h.runV8walk(['--pid', String(process.pid), '--period', '1', '-o', path.join(tmp, 'same.folded')]);
  assert.strictEqual(r.code, 2);
  assert.match(r.stderr, /-o needs %n or a strftime field/);
});
