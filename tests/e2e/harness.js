// harness.js — shared helpers for the end-to-end tests: start fixtures under the node being tested,
// run the real v8walk binary against them, parse its output, and check the target's health.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const ROOT = path.resolve(__dirname, '..', '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const NODE = process.env.NODE_UNDER_TEST || process.execPath;
// a node built as a shared library (Debian's libnode) needs its library directory
const NODE_LIBDIR = process.env.NODE_UNDER_TEST_LIBDIR || '';
const NODE_ENV = NODE_LIBDIR ? { LD_LIBRARY_PATH: NODE_LIBDIR } : {};
const FIXTURES = path.join(ROOT, 'fixtures');
// The sampler every sampling run uses: V8WALK_MODE=ptrace|bpf (scripts/run-e2e.sh runs the
// suite once per mode); unset = v8walk's default (auto, which is ptrace for one live target).
const MODE = process.env.V8WALK_MODE || 'ptrace';
if (!['ptrace', 'bpf'].includes(MODE)) throw new Error(`V8WALK_MODE must be ptrace or bpf, not ${MODE}`);

// How much longer a fixture's messages may take than on real hardware: V8WALK_E2E_TIME_SCALE (an
// emulated machine runs node many times slower: scripts/arm64-guest.sh sets it); 1 otherwise.
const WAIT_SCALE = Math.max(1, Number(process.env.V8WALK_E2E_TIME_SCALE) || 1);

// Who copies a stopped thread's stack in ptrace mode: V8WALK_STACK_COPY=read|kernel adds
// `--stack-copy` to every ptrace run that does not choose itself (scripts/check-asan.sh runs one
// pass with v8walk's own copies, the fallback where perf events are not allowed); unset = auto.
const STACK_COPY = process.env.V8WALK_STACK_COPY || '';

// `--mode MODE` in front of a sampling run's arguments (not for --dump, --core, --version-info,
// which have one form, nor when the test chose a mode itself), and `--stack-copy`; after the
// `top` subcommand, which must come first.
function withMode(args) {
  if (args[0] === 'top') return ['top', ...withMode(args.slice(1))];
  const oneForm = ['--mode', '--dump', '--core', '--version-info'];
  const noCopy = ['--stack-copy', '--core', '--version-info'];
  const ptrace = MODE === 'ptrace' && !args.includes('bpf');
  if (STACK_COPY && ptrace && !args.some((a) => noCopy.includes(a)))
    args = ['--stack-copy', STACK_COPY, ...args];
  if (!process.env.V8WALK_MODE || args.some((a) => oneForm.includes(a))) return args;
  return ['--mode', MODE, ...args];
}

// A test that belongs to one sampler's pass of the suite (e.g. ptrace's tracer handling); it is
// registered only in that pass, and runs there every time. eBPF's are named "[bpf] …".
function modeTest(mode, name, ...rest) {
  if (mode === MODE) require('node:test')(mode === 'bpf' ? `[bpf] ${name}` : name, ...rest);
}

// A test whose proof does not depend on the node line (a terminal, files cut by time): registered
// on the first node of a matrix run only (scripts/run-e2e.sh sets V8WALK_TERMINAL_TESTS=0 for the
// others), and always when one node is tested.
function firstNodeTest(...args) {
  if (process.env.V8WALK_TERMINAL_TESTS !== '0') require('node:test')(...args);
}

// The node under test's version ("v20.20.2"), asked once.
let nodeVersionText;
function nodeVersion() {
  nodeVersionText ??= spawnSync(NODE, ['--version'], { encoding: 'utf8', env: { ...process.env, ...NODE_ENV } }).stdout.trim();
  return nodeVersionText;
}

// The control protocol (fixtures/lib/control.js) over a child's stdin/stdout; resolves with the
// fixture once it printed its {"ready": true, …} line (within readyMs).
function controlled(child, name, running = () => child.exitCode === null && child.signalCode === null, readyMs = 30000 * WAIT_SCALE) {
  const rl = readline.createInterface({ input: child.stdout });
  const waiters = [];
  const messages = [];
  rl.on('line', (line) => {
    let msg;
    try { msg = JSON.parse(line); } catch { return; }
    messages.push(msg);
    for (const w of waiters.splice(0)) w();
  });
  const next = (pred, ms = 30000 * WAIT_SCALE) => new Promise((resolve, reject) => {
    const onExit = (code, sig) => { clearTimeout(t); reject(new Error(`fixture ${name} exited (${code ?? sig})`)); };
    const t = setTimeout(() => { child.off('exit', onExit); reject(new Error(`fixture ${name}: timed out waiting`)); }, ms);
    const check = () => {
      const i = messages.findIndex(pred);
      if (i >= 0) {
        clearTimeout(t);
        child.off('exit', onExit);
        resolve(messages.splice(i, 1)[0]);
      } else {
        waiters.push(check);
      }
    };
    child.once('exit', onExit);
    check();
  });
  let seq = 0;
  const fixture = {
    child,
    pid: child.pid,
    ready: null,
    next,
    // Does the target still answer? (resolves with its answer, the fixture's status, or false
    // within ms)
    async ping(ms = 5000) {
      const k = ++seq;
      if (!running()) return false;
      child.stdin.write(`ping ${k}\n`);
      try { return await next((m) => m.pong === k, ms); } catch { return false; }
    },
    // Why the target is gone, for assertion messages.
    describe() {
      if (child.exitCode === null && child.signalCode === null) return `target ${child.pid} is running`;
      return `target ${child.pid} exited with ${child.exitCode ?? child.signalCode}`;
    },
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return next((m) => m.ready, readyMs).then((r) => { fixture.ready = r; return fixture; });
}

// Start a fixture (under NODE, or another node binary); resolves once it is ready.
function startFixture(name, opts = {}) {
  return startScript(path.join(FIXTURES, name), opts);
}

// Start a fixture script given by its path (e.g. a copy outside the repository).
function startScript(script, { args = [], nodeArgs = [], env = {}, cwd, node = NODE, uid } = {}) {
  const child = spawn(node, [...nodeArgs, script, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...NODE_ENV, ...env },
    cwd,
    uid,
    gid: uid,
  });
  return controlled(child, path.basename(script));
}

// Launch mode: v8walk starts the fixture (`v8walk ARGS -- node FIXTURE`) and the fixture's stdin
// and stdout are v8walk's, so the control protocol runs through v8walk (the profile goes to -o).
// fixture.pid is the fixture's own pid; fixture.done resolves with v8walk's {code, signal, stderr}
// once v8walk and the fixture (which shares its stdout and stderr) are both gone; fixture.exited
// as soon as v8walk exits; fixture.stderr() is v8walk's stderr so far.
function launchFixture(name, { v8walkArgs = [], args = [], nodeArgs = [], env = {}, node = NODE } = {}) {
  const argv = withMode([...v8walkArgs, '--', node, ...nodeArgs, path.join(FIXTURES, name), ...args]);
  const child = spawn(V8WALK, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...NODE_ENV, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let pid = 0;
  const running = () => { try { process.kill(pid, 0); return procState(pid) !== 'Z'; } catch { return false; } };
  return controlled(child, name, running).then((fx) => {
    fx.pid = pid = fx.ready.pid;
    fx.v8walk = child;
    fx.done = done;
    fx.exited = exited;
    fx.stderr = () => stderr; // what v8walk has said so far
    fx.stop = () => { try { process.kill(fx.pid, 'SIGKILL'); } catch { /* gone */ } };
    return fx;
  });
}

// Can every user run this file (each directory on its path searchable by others, the file
// executable by them)? A node fetched into root's cache cannot be run by a dropped user.
function runnableByAnyone(file) {
  for (let p = path.resolve(file); p !== path.dirname(p); p = path.dirname(p))
    if (!(fs.statSync(p).mode & 0o001)) return false;
  return true;
}

// Run v8walk to completion (under `wrap`, a command that runs it: e.g. prlimit and its options).
// Returns {code, signal, stdout, stderr}.
function runV8walk(args, { timeoutMs = 120000 * WAIT_SCALE, env = {}, uid, wrap = [] } = {}) {
  return new Promise((resolve) => {
    const argv = [...wrap, V8WALK, ...withMode(args)];
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, uid, gid: uid });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(t); resolve({ code, signal, stdout, stderr, child }); });
  });
}

// Start v8walk (under `wrap`, as runV8walk) and hand back the child (for signal tests);
// `sampling` resolves once v8walk says it is sampling (its start-up, slower in a sanitizer build,
// is over), or when it ends first.
function startV8walk(args, { wrap = [] } = {}) {
  const argv = [...wrap, V8WALK, ...withMode(args)];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  let sawSampling;
  const sampling = new Promise((resolve) => { sawSampling = resolve; });
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => {
    stderr += d;
    if (/^v8walk: sampling /m.test(stderr)) sawSampling();
  });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  done.then(sawSampling);
  return { child, done, sampling };
}

// The main thread's pause {median, p99, max} in µs from a ptrace summary (the pause of every
// thread when the main thread was the only one stopped).
function mainPause(stderr) {
  const m = /the main thread's pause median (\d+) us, p99 (\d+) us, max (\d+) us/.exec(stderr) ||
    /pause median (\d+) us, p99 (\d+) us, max (\d+) us/.exec(stderr);
  if (!m) throw new Error(`no pause figure in:\n${stderr}`);
  return { median: +m[1], p99: +m[2], max: +m[3] };
}

// Folded output → [{frames: [...root first], count}]
function parseFolded(text) {
  return text.split('\n').filter(Boolean).map((line) => {
    const m = /^(.*) (\d+)$/.exec(line);
    if (!m) throw new Error(`not a folded line: ${JSON.stringify(line)}`);
    return { frames: m[1].split(';'), count: Number(m[2]) };
  });
}

// "name (file:line)_[j]" → {name, file, line, tag}: j its own frame, i inlined, a an async function
// awaiting the frames above it (--async)
function parseJsFrame(f) {
  const m = /^(.*) \((.*):(\d+)\)_\[([jia])\]$/.exec(f);
  if (m) return { name: m[1], file: m[2], line: Number(m[3]), tag: m[4] };
  const n = /^(.*)_\[([jia])\]$/.exec(f);
  return n ? { name: n[1], file: '', line: 0, tag: n[2] } : null;
}

// How many on-CPU samples a run at RATE Hz must at least produce for a target that got
// CPU_SECONDS of CPU meanwhile (half of what a perfect sampler takes, and never fewer than
// `floor`): on a loaded machine a target gets less CPU, and an on-CPU profiler fewer samples.
function samplesFloor(cpuSeconds, { rate = 99, floor = 10 } = {}) {
  return Math.max(floor, Math.floor(0.5 * rate * cpuSeconds));
}

// Scheduling state of a process from /proc ("R", "S", "t", …).
function procState(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ')[0];
  } catch { return null; }
}

// Every thread's state: a target left stopped by v8walk shows 't' or 'T'.
function threadStates(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map((tid) => procState(`${pid}/task/${tid}`));
  } catch { return []; }
}

// utime + stime of a process, in clock ticks.
// A process's CPU time in clock ticks, in user mode and in the kernel (/proc/PID/stat).
function cpuTimes(pid) {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]), system: Number(f[12]) };
}

function cpuTicks(pid) {
  const t = cpuTimes(pid);
  return t.user + t.system;
}

function tracerPid(pid) {
  const m = /TracerPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : -1;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Is pid's main thread traced by tracer? (Threads the target starts later run untraced until the
// sampler's next scan finds them, so the main thread is the one that proves the attach.)
function tracedBy(pid, tracer) {
  try { return tracerPid(pid) === tracer; } catch { return false; }
}

// Does process pid hold a loaded eBPF program and perf events (the eBPF sampler is running)?
function holdsBpfSampler(pid) {
  let fds;
  try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { return false; }
  const links = fds.map((fd) => { try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { return ''; } });
  return links.includes('anon_inode:bpf-prog') && links.includes('anon_inode:[perf_event]');
}

// Has the v8walk process `tracer` attached to `pid` in this pass's mode: ptrace, the target's
// main thread traced by it; eBPF, its program loaded and its perf events open.
function attached(pid, tracer) {
  return MODE === 'bpf' ? holdsBpfSampler(tracer) : tracedBy(pid, tracer);
}

// Poll cond every 10 ms until it holds (true) or timeoutMs passes (false).
async function waitFor(cond, timeoutMs) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(10)) if (cond()) return true;
  return cond();
}

// Does the chain [a, b, c] (names, root → leaf) occur contiguously among JS frames?
function hasChain(frames, chain) {
  const js = frames.map(parseJsFrame).filter(Boolean);
  for (let i = 0; i + chain.length <= js.length; i++) {
    if (chain.every((c, k) => js[i + k].name === c.name && (!c.file || js[i + k].file === c.file)
      && (!c.line || js[i + k].line === c.line))) return true;
  }
  return false;
}

module.exports = {
  ROOT, V8WALK, NODE, NODE_LIBDIR, NODE_ENV, FIXTURES, MODE, WAIT_SCALE, modeTest, firstNodeTest, nodeVersion, startFixture,
  startScript, launchFixture, runnableByAnyone, runV8walk, startV8walk, mainPause, parseFolded, parseJsFrame, procState, threadStates, cpuTimes, cpuTicks, samplesFloor,
  tracerPid, tracedBy, attached, waitFor, sleep, hasChain, controlled,
};
