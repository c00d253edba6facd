// sidecar.test.js — v8walk inside containers, under the runtime's default seccomp profile (which
// refuses perf_event_open and bpf without CAP_SYS_ADMIN): from the agent image run as a sidecar in
// the target's pid namespace (`podman run --pid container:X --cap-add SYS_PTRACE`), and inside the
// target's own container (`podman exec`, SYS_PTRACE given at its start). ptrace samples through its
// fallbacks (v8walk's own stack copies, /proc for thread states, the perf map) with names and lines
// as the target's Error.stack, and the summary says what was refused and which flags allow it; eBPF
// is refused in one line with a non-zero exit; with the flags it names, both samplers get what
// they lacked, and --stalls watches the loop from the sidecar.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const h = require('../harness');
const p = require('./podman');
const { parseStack } = require('../../../fixtures/lib/hold');

let img, agent;
test.before(() => {
  if (p.unavailable()) return;
  img = p.nodeImage();
  agent = p.agentImage();
});

const SM = `${p.APP}/sourcemaps`;
function sourcemapTarget(t, podmanArgs = []) {
  const dir = path.join(h.FIXTURES, 'sourcemaps');
  const build = require('node:child_process').spawnSync(path.join(dir, 'build.sh'), { encoding: 'utf8' });
  assert.strictEqual(build.status, 0, `fixtures/sourcemaps/build.sh: ${build.stderr}`);
  return p.startContainer(t, {
    img, podmanArgs,
    files: { ...p.fixtureFiles([]), [`${SM}/run.js`]: path.join(dir, 'run.js'), [`${SM}/out`]: path.join(dir, 'out'), [`${SM}/src`]: path.join(dir, 'src') },
    argv: ['node', `${SM}/run.js`, `${SM}/out/bundle/app.js`, '/tmp/release'],
  });
}

const truthKeys = (truth) => parseStack(truth).filter((f) => f.line !== null).slice(1)
  .map((f) => (f.file.startsWith('node:') ? `${f.file}:${f.line}` : `${f.name === null || f.name === '<anonymous>' ? '(anonymous)' : f.name} (${f.file}:${f.line})`));

// samples of the root in spinHere, and how many have Error.stack's frames below it
function exactShare(stdout, root, truth) {
  const want = JSON.stringify(truthKeys(truth));
  let total = 0, exact = 0;
  for (const s of h.parseFolded(stdout)) {
    if (s.frames[0] !== root) continue;
    const js = s.frames.map(h.parseJsFrame).filter((f) => f && f.file).reverse();
    const i = js.findIndex((f) => /(^|\.)spinHere$/.test(f.name));
    if (i < 0) continue;
    total += s.count;
    if (JSON.stringify(js.slice(i + 1).map((f) => (f.file.startsWith('node:') ? `${f.file}:${f.line}` : `${f.name} (${f.file}:${f.line})`))) === want) exact += s.count;
  }
  return { total, exact };
}

// v8walk in a sidecar container (the agent image) in fx's pid namespace
function sidecar(fx, flags, args) {
  return p.runContainerAsync(['--pid', `container:${fx.name}`, ...flags, agent, ...args]);
}

const REFUSED_PERF = /stacks copied by v8walk \(process_vm_readv[^\n]*perf events are refused in this container: its seccomp profile allows perf_event_open only with CAP_SYS_ADMIN[^\n]*--security-opt seccomp=unconfined/;
const oneLine = (stderr) => stderr.trim().split('\n').filter((l) => l.startsWith('v8walk:'));

test('[ptrace] sidecar: in the target\'s pid namespace under the default seccomp profile, named as Error.stack from its own stack copies; the summary names the refusal and the flags', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await sourcemapTarget(t);
  const r = await sidecar(fx, ['--cap-add', 'SYS_PTRACE'], ['--mode', 'ptrace', '--pid', '1', '--duration', '2', '--raw']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, REFUSED_PERF);
  assert.match(r.stderr, /--cap-add PERFMON --security-opt seccomp=unconfined/, 'CAP_PERFMON too: kernel.perf_event_paranoid is above 1 here');
  // the sidecar sees the target as pid 1, in the target's container
  const root = `node [container=${fx.id.slice(0, 12)}] (1)`;
  const s = exactShare(r.stdout, root, fx.ready.truth);
  assert.ok(s.total >= 20, `samples in spinHere under ${root}: ${s.total}\n${r.stdout.slice(0, 1500)}`);
  assert.ok(s.exact >= s.total * 0.9, `${s.exact} of ${s.total} samples with Error.stack's frames`);
  t.diagnostic(`sidecar ptrace: ${s.exact} of ${s.total} samples exactly as Error.stack, stacks copied by v8walk`);

  // with the flags it named, the kernel copies the stacks
  const ok = await sidecar(fx, ['--cap-add', 'SYS_PTRACE,PERFMON', '--security-opt', 'seccomp=unconfined'], ['--mode', 'ptrace', '--pid', '1', '--duration', '1', '--raw']);
  assert.strictEqual(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, /stacks copied by the kernel as each thread stopped: (\d+) of \1 stops/);
});

test('[ptrace] sidecar: irregexp code named from the perf map in the target\'s /tmp, under the pid the sidecar shares with it', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await p.startContainer(t, { img, files: p.fixtureFiles(['regex.js']), podmanArgs: ['-w', '/tmp'], argv: ['node', '--perf-basic-prof', `${p.APP}/regex.js`] });
  const r = await sidecar(fx, ['--cap-add', 'SYS_PTRACE'], ['--mode', 'ptrace', '--pid', '1', '--duration', '2', '--raw']);
  assert.strictEqual(r.code, 0, r.stderr);
  const stacks = h.parseFolded(r.stdout);
  const total = stacks.reduce((a, s) => a + s.count, 0);
  const named = stacks.filter((s) => s.frames.some((f) => /^RegExp[:.]/.test(f) && f.includes(fx.ready.source))).reduce((a, s) => a + s.count, 0);
  assert.ok(named >= total * 0.5, `${named}/${total} samples in the regexp, named from /proc/1/root/tmp/perf-1.map\n${r.stdout.slice(0, 1500)}`);
});

test('[bpf] sidecar: under the default seccomp profile eBPF is refused in one line naming the flags, with a non-zero exit; with them it samples', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await sourcemapTarget(t);
  const r = await sidecar(fx, ['--cap-add', 'SYS_PTRACE'], ['--mode', 'bpf', '--pid', '1', '--duration', '1', '--raw']);
  assert.notStrictEqual(r.code, 0, 'refused: a non-zero exit');
  assert.deepStrictEqual(oneLine(r.stderr), ['v8walk: eBPF sampling is refused in this container: it lacks CAP_BPF and CAP_PERFMON, and its seccomp profile refuses bpf() (a runtime\'s default allows it only with CAP_SYS_ADMIN); start it with --cap-add PERFMON,BPF --security-opt seccomp=unconfined (Kubernetes: securityContext capabilities.add [PERFMON, BPF], seccompProfile.type Unconfined)'], r.stderr);
  assert.strictEqual(r.stdout, '');

  const ok = await sidecar(fx, ['--cap-add', 'SYS_PTRACE,PERFMON,BPF', '--security-opt', 'seccomp=unconfined'], ['--mode', 'bpf', '--pid', '1', '--duration', '2', '--raw']);
  assert.strictEqual(ok.code, 0, ok.stderr);
  const s = exactShare(ok.stdout, `node [container=${fx.id.slice(0, 12)}] (1)`, fx.ready.truth);
  assert.ok(s.total >= 20 && s.exact >= s.total * 0.9, `eBPF from the sidecar: ${s.exact} of ${s.total} samples with Error.stack's frames`);

  // --stalls: the loop's waits are watched through the kernel's system-call tracepoints, which need
  // no tracefs (the container has none); the target spins in one iteration from before v8walk came
  const st = await sidecar(fx, ['--cap-add', 'SYS_PTRACE,PERFMON,BPF', '--security-opt', 'seccomp=unconfined'],
    ['--mode', 'bpf', '--pid', '1', '--stalls', '50', '--duration', '2', '-o', '/dev/null']);
  assert.strictEqual(st.code, 0, st.stderr);
  assert.match(st.stderr, /v8walk: stall over [\d.]+ ms and still running at .*spinHere/, st.stderr);
});

// the target's container with v8walk in it (bind-mounted read-only) and SYS_PTRACE
function insideArgs() {
  const bin = p.v8walkBinary().file;
  return ['--cap-add', 'SYS_PTRACE', '-v', `${bin}:/usr/local/bin/v8walk:ro`];
}
const execIn = (fx, args) => new Promise((resolve) => {
  const child = require('node:child_process').spawn(p.PODMAN, ['exec', fx.name, 'v8walk', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  child.on('close', (code) => resolve({ code, stdout, stderr }));
});

test('[ptrace] inside the target\'s own container (podman exec): named as Error.stack from its own stack copies, the refusal and the flags said', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await sourcemapTarget(t, insideArgs());
  const r = await execIn(fx, ['--mode', 'ptrace', '--pid', '1', '--duration', '2', '--raw']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, REFUSED_PERF);
  const s = exactShare(r.stdout, `node [container=${fx.id.slice(0, 12)}] (1)`, fx.ready.truth);
  assert.ok(s.total >= 20 && s.exact >= s.total * 0.9, `inside: ${s.exact} of ${s.total} samples with Error.stack's frames\n${r.stdout.slice(0, 1500)}`);
  assert.ok(fs.readFileSync(`/proc/${fx.hostPid}/status`, 'utf8').includes('TracerPid:\t0'), 'detached');
});

test('[bpf] inside the target\'s own container: refused in one line naming the flags, a non-zero exit', async (t) => {
  if (p.skipUnless(t)) return;
  const fx = await sourcemapTarget(t, insideArgs());
  const r = await execIn(fx, ['--mode', 'bpf', '--pid', '1', '--duration', '1', '--raw']);
  assert.notStrictEqual(r.code, 0);
  const lines = oneLine(r.stderr);
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], /^v8walk: eBPF sampling is refused in this container: .*--cap-add PERFMON,BPF --security-opt seccomp=unconfined/);
});
