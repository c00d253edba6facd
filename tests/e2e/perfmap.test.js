// perfmap.test.js — the perf-map fallback, in the pass's sampler: JIT code V8's heap cannot name
// (irregexp code is known to the heap only as an "IrregexpFrame") is named from the target's
// /tmp/perf-PID.map; the file is used only when it is safe (not a symlink, owned by the target's
// user or root), the last line for an address wins, and lines appended later are read.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-perfmap-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const mapOf = (pid) => `/tmp/perf-${pid}.map`;
// every user-space address (x86-64's 47 bits, arm64's 48: its mappings sit near the top of them):
// whatever the heap cannot name gets this line's name
const everything = (name) => `0 ffffffffffff ${name}\n`;

// A frame named from the map for the regexp SRC: V8 names it "RegExp:SRC" (V8 ≤ 12) or
// "RegExp.> src: 'SRC' flags: ''" (V8 13+).
const regexpNamed = (src) => (f) => /^RegExp[:.]/.test(f) && f.includes(src);

async function profile(pid, seconds = 1) {
  const r = await h.runV8walk(['--pid', String(pid), '--raw', '--duration', String(seconds)]);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(r.stdout);
  const total = stacks.reduce((a, s) => a + s.count, 0);
  const count = (pred) => stacks.filter((s) => s.frames.some(pred)).reduce((a, s) => a + s.count, 0);
  return { stacks, total, count };
}

test('perf map: node --perf-basic-prof: irregexp code is named from its perf map, and not without one', async (t) => {
  // (--perf-basic-prof also writes V8 logs into the current directory: keep them in tmp)
  const fx = await h.startFixture('regex.js', { nodeArgs: ['--perf-basic-prof'], cwd: tmp });
  t.after(() => { fx.stop(); fs.rmSync(mapOf(fx.pid), { force: true }); });
  const src = fx.ready.source;
  const named = regexpNamed(src);
  const p = await profile(fx.pid, 2);
  assert.ok(p.count(named) >= p.total * 0.5,
    `${p.count(named)}/${p.total} samples in the regexp, named from the map\n${p.stacks.slice(0, 2).map((s) => s.frames.slice(-3).join(';')).join('\n')}`);

  const plain = await h.startFixture('regex.js');
  t.after(() => plain.stop());
  const q = await profile(plain.pid);
  assert.strictEqual(q.count(named), 0, 'no map, no map names');
  assert.ok(q.total > 0);
});

test('perf map: a perf map is refused as a symlink or when another user owns it', async (t) => {
  const fx = await h.startFixture('regex.js');
  t.after(() => { fx.stop(); fs.rmSync(mapOf(fx.pid), { force: true }); });
  const crafted = path.join(tmp, 'crafted.map');
  fs.writeFileSync(crafted, everything('FAKE-LINKED'));
  fs.symlinkSync(crafted, mapOf(fx.pid));
  let p = await profile(fx.pid);
  assert.ok(p.total > 0);
  assert.strictEqual(p.count((f) => f.includes('FAKE-')), 0, 'a symlink is not followed');

  fs.rmSync(mapOf(fx.pid));
  fs.writeFileSync(mapOf(fx.pid), everything('FAKE-FOREIGN'));
  fs.chownSync(mapOf(fx.pid), 65534, 65534);
  p = await profile(fx.pid);
  assert.strictEqual(p.count((f) => f.includes('FAKE-')), 0, 'a file of another user is not read');

  // the same file owned by the target's user is used: the refusals above were for the reasons given
  fs.chownSync(mapOf(fx.pid), process.getuid(), process.getgid());
  p = await profile(fx.pid);
  assert.ok(p.count((f) => f === 'FAKE-FOREIGN') >= p.total * 0.5, `${p.count((f) => f === 'FAKE-FOREIGN')}/${p.total}`);
});

test('perf map: the last line for an address wins, and lines appended while sampling are read', async (t) => {
  const fx = await h.startFixture('regex.js');
  t.after(() => { fx.stop(); fs.rmSync(mapOf(fx.pid), { force: true }); });
  fs.writeFileSync(mapOf(fx.pid), everything('FAKE-FIRST') + everything('FAKE-LAST'));
  let p = await profile(fx.pid);
  assert.ok(p.count((f) => f === 'FAKE-LAST') >= p.total * 0.5, `${p.count((f) => f === 'FAKE-LAST')}/${p.total}`);
  assert.strictEqual(p.count((f) => f === 'FAKE-FIRST'), 0);

  fs.writeFileSync(mapOf(fx.pid), '1000 10 unrelated\n');
  const run = h.runV8walk(['--pid', String(fx.pid), '--raw', '--duration', '3']);
  await h.sleep(1500);
  fs.appendFileSync(mapOf(fx.pid), everything('FAKE-GROWN'));
  const r = await run;
  assert.strictEqual(r.code, 0, r.stderr);
  p = h.parseFolded(r.stdout);
  const grown = p.filter((s) => s.frames.includes('FAKE-GROWN')).reduce((a, s) => a + s.count, 0);
  const total = p.reduce((a, s) => a + s.count, 0);
  assert.ok(grown > 0, `named after the line was appended: ${grown}/${total}`);
});

test('perf map: in a container, the map is read from the target\'s own /tmp under its namespace pid', async (t) => {
  // The target runs in its own pid and mount namespaces with a private /tmp (as in a container):
  // node is pid 1 there and writes /tmp/perf-1.map into a directory the host sees elsewhere. A
  // decoy at the host's /tmp/perf-HOSTPID.map must not be used. The fixture is copied into the
  // private /tmp, since the mount hides whatever the host keeps under /tmp (a checkout there too).
  const probe = spawnSync('unshare', ['--pid', '--fork', '--mount', '--mount-proc', 'sh', '-c', 'mount -t tmpfs none /tmp'], { encoding: 'utf8' });
  assert.strictEqual(probe.status, 0, `this test needs unshare(1) and CAP_SYS_ADMIN for pid and mount namespaces: ${probe.stderr}`);
  const priv = fs.mkdtempSync(path.join(tmp, 'container-tmp-'));
  fs.mkdirSync(path.join(priv, 'lib'));
  for (const f of ['regex.js', 'lib/control.js']) fs.copyFileSync(path.join(h.FIXTURES, f), path.join(priv, f));
  // (a node or a libnode kept under the host's /tmp is reached through a bind of it in the
  // namespace's own /mnt; a root filesystem without /mnt, as the emulated arm64 machine's, gets one)
  const inner = '{ [ -d /mnt ] || mkdir /mnt; } && mount -t tmpfs none /mnt && mkdir /mnt/t && mount --bind /tmp /mnt/t && ' +
    'mount --bind "$V8WALK_PRIVATE_TMP" /tmp && cd /tmp && n=$0 && ' +
    'case $n in /tmp/*) n=/mnt/t/${n#/tmp/} ;; esac && ' +
    'case "${LD_LIBRARY_PATH:-}" in /tmp/*) export LD_LIBRARY_PATH=/mnt/t/${LD_LIBRARY_PATH#/tmp/} ;; esac && ' +
    'exec "$n" "$@"';
  const fx = await h.startScript('/tmp/regex.js', {
    node: 'unshare',
    nodeArgs: ['--pid', '--fork', '--kill-child', '--mount', '--mount-proc', 'sh', '-c', inner, h.NODE, '--perf-basic-prof'],
    env: { V8WALK_PRIVATE_TMP: priv },
  });
  t.after(() => fx.stop());
  // unshare forks sh, which execs node: node's host pid is unshare's only child
  const pid = Number(fs.readFileSync(`/proc/${fx.pid}/task/${fx.pid}/children`, 'utf8').trim());
  assert.ok(pid > 0 && fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^NSpid:\s+\d+\s+1$/m), 'node is pid 1 in its namespace');
  t.after(() => fs.rmSync(mapOf(pid), { force: true }));
  fs.writeFileSync(mapOf(pid), everything('FAKE-HOST-TMP'));
  assert.ok(fs.existsSync(path.join(priv, 'perf-1.map')), 'node wrote its map into its own /tmp');
  assert.ok(!fs.existsSync(mapOf(1)), 'the host has no /tmp/perf-1.map');

  const src = fx.ready.source;
  const named = regexpNamed(src);
  const p = await profile(pid, 2);
  assert.strictEqual(p.count((f) => f.includes('FAKE-')), 0, 'the host\'s /tmp is not the target\'s');
  assert.ok(p.count(named) >= p.total * 0.5, `${p.count(named)}/${p.total} samples in the regexp, named from the container's map`);
});
