// agent.test.js — the agent image as the DaemonSet runs it: podman flags and arguments taken from
// contrib/kubernetes/v8walk-agent.yaml (the host's pid namespace, its capabilities, a read-only
// root, seccomp unconfined, its CPU and memory limits, credentials from the environment, the spool
// on a volume), the period shortened and the export pointed at a ClickHouse server on loopback
// whose database does not exist yet (--create-schema makes it). Beside it, four busy node
// containers, each its own service (package.json's name, found through the container's root): the
// rows that arrive carry each container's id and service, the node label, and stacks with the
// fixture's own functions at their container paths. The agent's CPU and peak RSS are measured
// over the run (V8WALK_AGENT_SECONDS, default 12; docs/containers.md has a 10-minute run).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const h = require('../harness');
const ch = require('../clickhouse_server');
const p = require('./podman');

const SECONDS = Number(process.env.V8WALK_AGENT_SECONDS || 12);
const PERIOD = SECONDS >= 120 ? 30 : 2;
const TARGETS = 4;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-ctr-agent-'));
let server;
test.after(async () => { if (server) await server.kill(); fs.rmSync(tmp, { recursive: true, force: true }); });

// The DaemonSet's container, read with the pinned YAML parser of the schema check.
function daemonSetContainer() {
  const install = spawnSync(path.join(h.ROOT, 'tests', 'kubernetes', 'install.sh'), { encoding: 'utf8' });
  assert.strictEqual(install.status, 0, install.stderr);
  const YAML = require(path.join(h.ROOT, 'tests', 'kubernetes', 'node_modules', 'yaml'));
  const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(h.ROOT, 'contrib', 'kubernetes', 'v8walk-agent.yaml'), 'utf8')).map((d) => d.toJS());
  const ds = docs.find((d) => d && d.kind === 'DaemonSet');
  return { pod: ds.spec.template.spec, c: ds.spec.template.spec.containers[0] };
}

// Capabilities this process may hand on (its bounding set): a container cannot get others.
function bounding() {
  const v = BigInt(`0x${/CapBnd:\s+([0-9a-f]+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]}`);
  const names = { SYS_PTRACE: 19, DAC_READ_SEARCH: 2, SYS_RESOURCE: 24, PERFMON: 38, BPF: 39, SYS_ADMIN: 21 };
  return (cap) => names[cap] !== undefined && ((v >> BigInt(names[cap])) & 1n) === 1n;
}

// podman flags and arguments for the DaemonSet's container
function podmanFromDaemonSet({ pod, c }, { url, spool, env }) {
  const sc = c.securityContext;
  const may = bounding();
  const caps = sc.capabilities.add.filter(may);
  const flags = ['--cap-drop', 'ALL', '--cap-add', caps.join(',')];
  if (pod.hostPID) flags.push('--pid', 'host');
  if (sc.readOnlyRootFilesystem) flags.push('--read-only');
  if (sc.seccompProfile?.type === 'Unconfined') flags.push('--security-opt', 'seccomp=unconfined');
  if (sc.allowPrivilegeEscalation === false) flags.push('--security-opt', 'no-new-privileges');
  const cpu = c.resources.limits.cpu;
  flags.push('--cpus', String(/m$/.test(cpu) ? parseInt(cpu, 10) / 1000 : Number(cpu)));
  flags.push('--memory', c.resources.limits.memory.replace(/Mi$/, 'm').replace(/Gi$/, 'g'));
  const spoolPath = c.args[c.args.indexOf('--spool') + 1];
  flags.push('-v', `${spool}:${spoolPath}`);
  for (const [k, v] of Object.entries(env)) flags.push('-e', `${k}=${v}`);
  const args = c.args.map((a) => a.replace('$(NODE_NAME)', 'test-node'));
  args[args.indexOf('--period') + 1] = String(PERIOD);
  args[args.indexOf('--export') + 1] = url;
  return { flags, args: [...args, '--create-schema', '--duration', String(SECONDS)], left: sc.capabilities.add.filter((x) => !may(x)) };
}

// CPU ticks (utime + stime), RSS and its anonymous part (RSS less the mapped files' pages:
// here, mostly the node binaries libelf maps to read their symbols) of a process, from /proc
function usage(pid) {
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] || 0);
    return { ticks: Number(f[11]) + Number(f[12]), rssKb: kb('VmRSS'), anonKb: kb('RssAnon') };
  } catch { return null; }
}

test('the agent image as the DaemonSet runs it, beside four busy node containers: the rows in ClickHouse carry each container, its service and the node', async (t) => {
  if (p.skipUnless(t)) return;
  const img = p.nodeImage();
  const agent = p.agentImage();
  server = await ch.createServer(tmp, 'agent');
  await server.start();
  const targets = [];
  for (let i = 0; i < TARGETS; i++) {
    const pkg = path.join(tmp, `package-${i}.json`);
    fs.writeFileSync(pkg, JSON.stringify({ name: `shop-${i}`, private: true }));
    targets.push(await p.startContainer(t, {
      img, files: { ...p.fixtureFiles(['chain.js']), [`${p.APP}/package.json`]: pkg }, argv: ['node', `${p.APP}/chain.js`],
    }));
  }
  const spool = fs.mkdtempSync(path.join(tmp, 'spool-'));
  const db = `fleet_${process.pid}`;
  const run = podmanFromDaemonSet(daemonSetContainer(), {
    url: server.url(`${db}.v8walk`), spool, env: { V8WALK_CLICKHOUSE_USER: 'agent', V8WALK_CLICKHOUSE_PASSWORD: ch.AGENT_PASSWORD },
  });
  if (run.left.length) t.diagnostic(`left out (this machine's bounding set lacks them): ${run.left.join(', ')}`);
  const name = `v8walk-test-agent-${process.pid}`;
  t.after(() => spawnSync(p.PODMAN, ['rm', '-f', '-t', '0', name], { stdio: 'ignore' }));
  const child = spawn(p.PODMAN, ['run', '--rm', '--name', name, ...run.flags, agent, ...run.args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.resume();
  const done = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  // the agent's own process, as the host sees it: its CPU and RSS over the run
  let pid = 0;
  await h.waitFor(() => {
    const r = spawnSync(p.PODMAN, ['inspect', '--format', '{{.State.Pid}}', name], { encoding: 'utf8' });
    pid = Number(r.stdout.trim()) || 0;
    return pid > 0;
  }, 60000);
  let first = null, last = null, peakKb = 0, peakAnonKb = 0;
  const sampler = setInterval(() => {
    const u = pid && usage(pid);
    if (!u) return;
    first ??= { ...u, at: Date.now() };
    last = { ...u, at: Date.now() };
    peakKb = Math.max(peakKb, u.rssKb);
    peakAnonKb = Math.max(peakAnonKb, u.anonKb);
  }, 500);
  const code = await done;
  clearInterval(sampler);
  assert.strictEqual(code, 0, stderr);
  const hz = 100; // USER_HZ
  const cpu = first && last && last.at > first.at ? (100 * (last.ticks - first.ticks) / hz) / ((last.at - first.at) / 1000) : NaN;
  const seen = /(\d+) processes, (\d+) threads seen/.exec(stderr);
  t.diagnostic(`agent over ${SECONDS} s beside ${TARGETS} busy containerized nodes (period ${PERIOD} s; every node process of the host: ${seen ? seen[1] : '?'} processes): CPU ${cpu.toFixed(1)} % of one CPU, peak RSS ${(peakKb / 1024).toFixed(1)} MiB (anonymous ${(peakAnonKb / 1024).toFixed(1)} MiB)`);

  const rows = (await server.query(`SELECT labels.value[indexOf(labels.key, 'container')] AS c, service,
    labels.value[indexOf(labels.key, 'node')] AS node, sum(count) FROM ${db}.v8walk_samples GROUP BY c, service, node FORMAT TSV`)).trim().split('\n').map((l) => l.split('\t'));
  for (const [i, fx] of targets.entries()) {
    const short = fx.id.slice(0, 12);
    const mine = rows.filter((r) => r[0] === short);
    assert.deepStrictEqual(mine.map((r) => [r[1], r[2]]), [[`shop-${i}`, 'test-node']], `container ${short}: one service, the node label\n${rows.map((r) => r.join(' ')).join('\n')}`);
    const n = Number(mine[0][3]);
    assert.ok(n >= SECONDS * 99 * 0.25, `container ${short}: ${n} samples in ${SECONDS} s`);
    const frames = await server.query(`SELECT arrayJoin(frames) FROM ${db}.v8walk_stacks WHERE stack_hash IN
      (SELECT stack_hash FROM ${db}.v8walk_samples WHERE labels.value[indexOf(labels.key, 'container')] = '${short}') FORMAT TSV`);
    for (const fn of ['outer', 'middle', 'leaf'])
      assert.ok(frames.includes(`${fn} (${p.APP}/chain.js:`), `${fn} at its container path among the stacks of ${short}`);
    // report selects the container by its label: the same count
    const rep = await h.runV8walk(['report', '--from', server.url(`${db}.v8walk`), '--where', `container=${short}`, '--since', '1d', '--raw']);
    assert.strictEqual(rep.code, 0, rep.stderr);
    assert.strictEqual(h.parseFolded(rep.stdout).reduce((x, st) => x + st.count, 0), n, `report --where container=${short}`);
  }
  assert.ok(!fs.readdirSync(spool).some((f) => !f.startsWith('.')), 'nothing left in the spool');
});
