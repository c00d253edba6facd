// top.test.js — `v8walk top` in a real terminal (tmux: send-keys, capture-pane): the fixture's
// hot function is the top row, keys change the sort column, the thread and the lines, `q` exits 0
// and gives the terminal back as it was (the shell's screen again, the same stty settings); and
// the batch form (stdout not a terminal): its last table (the whole run) agrees with the folded
// profile written by the same run from the same samples.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const h = require('./harness');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-top-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const haveTmux = spawnSync('tmux', ['-V']).status === 0;
function needTmux() {
  if (!haveTmux) throw new Error('tmux is missing: install Debian\'s tmux (scripts/setup-deps.sh)');
}

// a tmux server of its own (a socket per session), with one shell in a 200×50 window
let sessions = 0;
function tmuxSession() {
  const sock = path.join(tmp, `tmux-${process.pid}-${++sessions}`);
  const tmux = (...args) => {
    const r = spawnSync('tmux', ['-S', sock, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  tmux('new-session', '-d', '-s', 'top', '-x', '200', '-y', '50', 'env PS1="$ " sh');
  return {
    tmux,
    send: (...keys) => tmux('send-keys', '-t', 'top', ...keys),
    screen: () => tmux('capture-pane', '-p', '-t', 'top'),
    kill: () => { try { tmux('kill-server'); } catch { /* gone */ } },
  };
}

// wait until the screen satisfies pred; returns the screen
async function screenWhere(s, pred, what, ms = 20000) {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    last = s.screen();
    if (pred(last)) return last;
    if (Date.now() > end) throw new Error(`the screen never showed ${what}:\n${last}`);
    await h.sleep(100);
  }
}

// the table rows of a screen: {own, total, ownTime, totalTime, fn}
function rows(screen) {
  const lines = screen.split('\n');
  const at = lines.findIndex((l) => /%Own\s+%Total\s+OwnTime\s+TotalTime\s+Function/.test(l));
  if (at < 0) return [];
  const out = [];
  for (const l of lines.slice(at + 1)) {
    const m = /^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)s\s+([\d.]+)s\s+(.*?)\s*$/.exec(l);
    if (!m) break;
    out.push({ own: +m[1], total: +m[2], ownTime: +m[3], totalTime: +m[4], fn: m[5] });
  }
  return out;
}
const nonIncreasing = (v) => v.every((x, i) => i === 0 || v[i - 1] >= x);

h.firstNodeTest('top in a terminal: the hot function on top, keys 1-4/t/l/space change the view, a resize redraws it, q restores the terminal', async () => {
  needTmux();
  const fx = await h.startFixture('chain.js');
  const s = tmuxSession();
  try {
    const before = path.join(tmp, 'stty-before'), after = path.join(tmp, 'stty-after');
    s.send(`stty -g > ${before}; clear; echo started; ${h.V8WALK} top --mode ${h.MODE} --pid ${fx.pid} --interval 0.5; echo "EXIT=$?"; stty -g > ${after}`, 'Enter');
    // two refreshes, so that the window is a full interval
    // the window is the last interval: on a loaded machine one may hold few samples, so the
    // checks wait (up to 20 s) for a screen that shows what they expect
    const leafRe = new RegExp(`^leaf \\(${fx.ready.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+\\)$`);
    let screen = await screenWhere(s, (x) => rows(x).length > 3 && /samples [1-9]\d\d/.test(x) && leafRe.test(rows(x)[0].fn), 'leaf on top after 100 samples');
    assert.doesNotMatch(screen, /started/, 'the view is on the alternate screen');
    assert.match(screen, new RegExp(`pid ${fx.pid}: \\S*node\\S* \\S*chain\\.js`), 'the header names the pid and its command line');
    assert.match(screen, /Node v?\d+\.\d+\.\d+ \(V8 [\d.]+\) \| sampler (ptrace|eBPF)/);
    let r = rows(screen);
    assert.ok(nonIncreasing(r.map((x) => x.own)), 'sorted by %Own');
    s.send('4');
    screen = await screenWhere(s, (x) => /sort TotalTime/.test(x), 'sort TotalTime');
    r = rows(screen);
    assert.ok(nonIncreasing(r.map((x) => x.totalTime)), `sorted by TotalTime:\n${screen}`);
    assert.ok(r[0].totalTime >= r.find((x) => x.fn.startsWith('leaf ')).totalTime, 'the outermost frames first');
    s.send('2');
    screen = await screenWhere(s, (x) => /sort %Total/.test(x), 'sort %Total');
    assert.ok(nonIncreasing(rows(screen).map((x) => x.total)), 'sorted by %Total');
    s.send('1', 't');
    await screenWhere(s, (x) => new RegExp(`thread main \\(${fx.pid}\\)`).test(x) && /sort %Own/.test(x) && /^leaf /.test(rows(x)[0]?.fn), 'the main thread chosen, leaf on top');
    s.send('t');
    await screenWhere(s, (x) => /thread all/.test(x), 'all threads again (chain.js has no worker)');
    s.send('l');
    screen = await screenWhere(s, (x) => /lines: definition/.test(x), 'definition lines');
    const leafRows = rows(screen).filter((x) => x.fn.startsWith('leaf '));
    assert.deepStrictEqual(leafRows.map((x) => x.fn), [`leaf (${fx.ready.file}:${fx.ready.defLines.leaf})`], 'leaf is one row at its definition line');
    // n and w: the modes the unit tests check the arithmetic of, toggled from the keyboard
    s.send('n', 'w');
    screen = await screenWhere(s, (x) => /native own: on/.test(x) && /window since start/.test(x), 'native own on, since start');
    r = rows(screen);
    const sum = r.reduce((a, x) => a + x.own, 0);
    assert.ok(sum > 98 && sum < 101, `since the start, %Own adds up to 100 (less the rows below the screen): ${sum}`);
    s.send('n', 'w');
    await screenWhere(s, (x) => /native own: off/.test(x) && /window last interval/.test(x), 'native own off, last interval');
    // paused (no refresh of its own), the view is redrawn for a new size: 6 lines of header
    s.send(' ');
    await screenWhere(s, (x) => /PAUSED/.test(x), 'paused');
    const full = rows(s.screen()).length;
    assert.ok(full > 14, `more rows than a 20-line window holds: ${full}`);
    s.tmux('resize-window', '-t', 'top', '-y', '20');
    await screenWhere(s, (x) => /PAUSED/.test(x) && rows(x).length === 14, '14 rows in a 20-line window');
    s.tmux('resize-window', '-t', 'top', '-y', '50');
    await screenWhere(s, (x) => /PAUSED/.test(x) && rows(x).length === full, `${full} rows again in 50 lines`);
    s.send(' ');
    await screenWhere(s, (x) => !/PAUSED/.test(x), 'running again');
    s.send('q');
    screen = await screenWhere(s, (x) => /EXIT=\d+/.test(x), 'v8walk\'s exit');
    assert.match(screen, /EXIT=0/, 'q exits 0');
    assert.match(screen, /started/, 'the shell\'s own screen is back (alternate screen left)');
    assert.doesNotMatch(screen, /%Own/, 'no trace of the view on the shell\'s screen');
    await screenWhere(s, () => fs.existsSync(after) && fs.readFileSync(after, 'utf8').trim() !== '', 'stty after');
    assert.strictEqual(fs.readFileSync(after, 'utf8'), fs.readFileSync(before, 'utf8'), 'the terminal settings are as before');
  } finally {
    s.kill();
    fx.stop();
  }
});

h.firstNodeTest('top ends cleanly when the target exits, on SIGTERM and on Ctrl-C: terminal restored', async () => {
  needTmux();
  const s = tmuxSession();
  const fx = await h.startFixture('chain.js');
  try {
    const before = path.join(tmp, 'stty-b2'), after = path.join(tmp, 'stty-a2');
    s.send(`stty -g > ${before}; clear; echo started; ${h.V8WALK} top --mode ${h.MODE} --pid ${fx.pid} --interval 0.5; echo "EXIT=$?"; stty -g > ${after}`, 'Enter');
    await screenWhere(s, (x) => rows(x).length > 0, 'a table');
    fx.stop(); // the target dies
    const screen = await screenWhere(s, (x) => /EXIT=\d+/.test(x), 'v8walk\'s exit when the target died');
    assert.match(screen, /EXIT=0/);
    assert.match(screen, /started/, 'the shell\'s own screen is back');
    await screenWhere(s, () => fs.existsSync(after) && fs.readFileSync(after, 'utf8').trim() !== '', 'stty after');
    assert.strictEqual(fs.readFileSync(after, 'utf8'), fs.readFileSync(before, 'utf8'), 'terminal settings restored');
    // SIGTERM
    const fx2 = await h.startFixture('chain.js');
    try {
      s.send(`clear; echo again; ${h.V8WALK} top --mode ${h.MODE} --pid ${fx2.pid} --interval 0.5; echo "EXIT2=$?"; stty -g > ${after}2`, 'Enter');
      let x = await screenWhere(s, (y) => rows(y).length > 0, 'a table');
      const v = spawnSync('pgrep', ['-f', `top --mode ${h.MODE} --pid ${fx2.pid}`], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
      assert.ok(v, 'v8walk top runs');
      process.kill(Number(v), 'SIGTERM');
      x = await screenWhere(s, (y) => /EXIT2=\d+/.test(y), 'v8walk\'s exit on SIGTERM');
      assert.match(x, /EXIT2=0/);
      assert.match(x, /again/, 'the shell\'s own screen is back');
      await screenWhere(s, () => fs.existsSync(`${after}2`) && fs.readFileSync(`${after}2`, 'utf8').trim() !== '', 'stty after');
      assert.strictEqual(fs.readFileSync(`${after}2`, 'utf8'), fs.readFileSync(before, 'utf8'), 'terminal settings restored after SIGTERM');
      // Ctrl-C typed in the terminal
      s.send(`clear; echo third; ${h.V8WALK} top --mode ${h.MODE} --pid ${fx2.pid} --interval 0.5; echo "EXIT3=$?"; stty -g > ${after}3`, 'Enter');
      await screenWhere(s, (y) => rows(y).length > 0, 'a table');
      s.send('C-c');
      x = await screenWhere(s, (y) => /EXIT3=\d+/.test(y), 'v8walk\'s exit on Ctrl-C');
      assert.match(x, /EXIT3=0/);
      assert.match(x, /third/, 'the shell\'s own screen is back');
      await screenWhere(s, () => fs.existsSync(`${after}3`) && fs.readFileSync(`${after}3`, 'utf8').trim() !== '', 'stty after');
      assert.strictEqual(fs.readFileSync(`${after}3`, 'utf8'), fs.readFileSync(before, 'utf8'), 'terminal settings restored after Ctrl-C');
    } finally {
      fx2.stop();
    }
  } finally {
    s.kill();
    fx.stop();
  }
});

// the frame text top shows: the folded frame without its _[j]/_[i] tag
const shown = (frame) => frame.replace(/_\[[ji]\]$/, '');
const isJs = (frame) => /_\[[ji]\]$/.test(frame);

test('top batch (stdout not a terminal): the whole run\'s table agrees with the folded profile of the same samples', async () => {
  const fx = await h.startFixture('chain.js');
  const out = path.join(tmp, 'batch.folded');
  const r = await h.runV8walk(['top', '--mode', h.MODE, '--pid', String(fx.pid), '--duration', '3.2', '--interval', '1', '-o', out]);
  fx.stop();
  assert.strictEqual(r.code, 0, r.stderr);
  const tables = r.stdout.split(/^--- /m).filter(Boolean);
  assert.ok(tables.length >= 2, `tables per interval and one for the run: ${tables.length}\n${r.stdout}`);
  const last = tables[tables.length - 1];
  const m = /since start: (\d+) samples/.exec(last);
  assert.ok(m, `the last table is the whole run:\n${last}`);
  // own samples as top counts them by default: native time charged to the innermost JS frame
  const stacks = h.parseFolded(fs.readFileSync(out, 'utf8'));
  const own = {}, total = {};
  let all = 0;
  for (const s of stacks) {
    all += s.count;
    const frames = s.frames.slice(2);
    if (!frames.length) continue;
    const js = frames.filter(isJs);
    const mine = shown(js.length ? js[js.length - 1] : frames[frames.length - 1]);
    own[mine] = (own[mine] || 0) + s.count;
    for (const f of new Set(frames.map(shown))) total[f] = (total[f] || 0) + s.count;
  }
  assert.strictEqual(Number(m[1]), all, 'the same samples as the folded profile');
  const rate = 99;
  const table = rows(last);
  assert.ok(table.length > 5, last);
  for (const row of table) {
    // a long C++ name may be cut in the table's column: then it is the start of exactly one
    const starts = Object.keys(total).filter((k) => k.startsWith(row.fn));
    assert.ok(row.fn in total || starts.length > 0, `a function of the profile: ${row.fn}`);
    if (!(row.fn in total) && starts.length > 1) {
      // cut where several template instances share the start: bounded by them together
      const sum = starts.reduce((a, k) => a + total[k], 0);
      assert.ok(row.total <= (100 * sum) / all + 0.006, `%Total of ${row.fn}… within its ${starts.length} candidates`);
      continue;
    }
    const fn = row.fn in total ? row.fn : starts[0];
    assert.ok(Math.abs(row.own - (100 * (own[fn] || 0)) / all) <= 0.006, `%Own of ${fn}: ${row.own} vs ${(100 * (own[fn] || 0)) / all}`);
    assert.ok(Math.abs(row.total - (100 * total[fn]) / all) <= 0.006, `%Total of ${fn}`);
    assert.ok(Math.abs(row.ownTime - (own[fn] || 0) / rate) <= 0.006, `OwnTime of ${fn}`);
  }
  // the table is ordered by own samples, the first row the profile's hottest function; chain.js
  // spends its time in leaf and in mix, which TurboFan inlines into leaf once it optimizes it
  // (until then, as in a slow emulated machine, mix is a frame of its own and may lead)
  const hottest = Object.keys(own).sort((a, b) => own[b] - own[a])[0];
  assert.ok(table[0].fn === hottest || own[table[0].fn] === own[hottest], `the first row is the hottest function: ${table[0].fn} vs ${hottest}`);
  assert.match(table[0].fn, /^(leaf|mix) /, 'the hot function is chain.js\'s leaf (or mix, not yet inlined into it)');
});

// (the process column does not depend on the node line: first node only, as the terminal tests)
if (process.env.V8WALK_TERMINAL_TESTS !== '0') h.modeTest('bpf', 'top --all-node (batch): a process column; each fixture\'s hot function under its pid', async () => {
  const a = await h.startFixture('chain.js');
  const b = await h.startFixture('chain.js');
  try {
    const r = await h.runV8walk(['top', '--mode', 'bpf', '--all-node', '--duration', '4', '--interval', '1']);
    assert.strictEqual(r.code, 0, r.stderr);
    const tables = r.stdout.split(/^--- /m).filter(Boolean);
    const last = tables[tables.length - 1];
    assert.match(last, /since start/);
    assert.match(last, /%Own\s+%Total\s+OwnTime\s+TotalTime\s+Process\s+Function/, 'a process column');
    const pidOf = (fn) => last.split('\n').filter((l) => l.includes(fn)).map((l) => Number(/s\s+(\d+)\s+\S/.exec(l)?.[1]));
    assert.ok(pidOf('leaf (').includes(a.pid), `chain.js's leaf under its pid ${a.pid}:\n${last}`);
    assert.ok(pidOf('leaf (').includes(b.pid), `the other chain.js's leaf under its pid ${b.pid}:\n${last}`);
  } finally {
    a.stop();
    b.stop();
  }
});

h.firstNodeTest('top: a function name with escape sequences reaches the terminal as plain text', async () => {
  const script = path.join(tmp, 'evil.js');
  fs.writeFileSync(script, `'use strict';
const control = require(${JSON.stringify(path.join(h.FIXTURES, 'lib', 'control.js'))});
const o = { ['evil\\x1b[2J\\x07\\u009bname']() { let a = 0; for (let i = 0; i < 200000; i++) a = (a * 31 + i) % 1000003; return a; } };
function loop() { for (let k = 0; k < 20; k++) o['evil\\x1b[2J\\x07\\u009bname'](); setImmediate(loop); }
loop();
control.ready({});
`);
  const fx = await h.startScript(script);
  try {
    const r = await h.runV8walk(['top', '--mode', h.MODE, '--pid', String(fx.pid), '--duration', '2', '--interval', '1']);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]/.test(r.stdout), 'no control character in the output');
    // the control characters shown as visible escapes (util/text_escape: \x1b, \x07, and the
    // C1 control's UTF-8 bytes \xc2\x9b)
    assert.match(r.stdout, /evil\\x1b\[2J\\x07\\xc2\\x9bname/, `the name with its control characters escaped:\n${r.stdout.slice(0, 2000)}`);
  } finally {
    fx.stop();
  }
});
