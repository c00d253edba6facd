// kubernetes_manifest.test.js — contrib/kubernetes/v8walk-agent.yaml is valid for the Kubernetes API
// (tests/kubernetes/validate.mjs: its schemas, strict about unknown fields; the check is shown to
// catch a misspelt field, a wrong type, a missing required field and an unknown kind), and it is the
// agent the docs describe: every node process of every node (hostPID, tolerations), only the
// capabilities the samplers use, a read-only root, seccomp and AppArmor that let eBPF and ptrace
// through, bounded CPU and memory, ClickHouse credentials from a Secret, the spool on a volume,
// and a command line of options `v8walk --help` lists.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..', '..');
const manifest = path.join(root, 'contrib', 'kubernetes', 'v8walk-agent.yaml');
const v8walk = process.env.V8WALK || path.join(root, 'build', 'v8walk');
const text = fs.readFileSync(manifest, 'utf8');

let validate;
test.before(async () => {
  const r = spawnSync(path.join(root, 'tests', 'kubernetes', 'install.sh'), { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `tests/kubernetes/install.sh (npm ci from the npm registry): ${r.stderr}`);
  ({ validateText: validate } = await import(path.join(root, 'tests', 'kubernetes', 'validate.mjs')));
});

test('the agent manifest is valid for the Kubernetes API schema, no unknown field', async () => {
  const { errors, documents } = await validate(text, 'v8walk-agent.yaml');
  assert.deepStrictEqual(errors, []);
  assert.deepStrictEqual(documents.map((d) => d.kind), ['Namespace', 'ServiceAccount', 'DaemonSet']);
});

test('the schema check refuses a misspelt field, a wrong type, a missing required field, an unknown kind', async () => {
  const cases = [
    [text.replace('readOnlyRootFilesystem', 'readOnlyRootFilesytem'), /securityContext\.readOnlyRootFilesytem: no such field/],
    [text.replace('  labels:\n    app.kubernetes.io/name: v8walk-agent\nspec:', '  labelz:\n    app.kubernetes.io/name: v8walk-agent\nspec:'), /metadata\.labelz: no such field/],
    [text.replace('hostPID: true', 'hostPID: "yes"'), /hostPID must be boolean/],
    [text.replace(/ {8}- name: v8walk\n {10}image: /, '        - image: '), /containers\/0 must have required property name/],
    [text.replace('kind: DaemonSet', 'kind: DaemonSett'), /no kind DaemonSett in apps\/v1/],
    [text.replace('type: Unconfined\n            # a default', 'type: Unconfinedd\n            # a default'), /seccompProfile\/type must be equal to one of the allowed values/],
  ];
  for (const [bad, re] of cases) {
    assert.notStrictEqual(bad, text, `the case ${re} changed the manifest`);
    const { errors } = await validate(bad, 'bad.yaml');
    assert.ok(errors.some((e) => re.test(e)), `${re} among:\n${errors.join('\n')}`);
  }
});

function agent(documents) {
  const ds = documents.find((d) => d.kind === 'DaemonSet');
  return { ds, pod: ds.spec.template.spec, c: ds.spec.template.spec.containers[0] };
}

test('the DaemonSet: every node and its processes, the fewest capabilities, read-only, eBPF allowed, bounded, credentials from a Secret, the spool on a volume', async () => {
  const { documents } = await validate(text, 'v8walk-agent.yaml');
  const { pod, c } = agent(documents);
  assert.strictEqual(pod.hostPID, true);
  assert.ok(pod.tolerations.some((t) => t.operator === 'Exists' && !t.key && !t.effect), 'tolerates every taint');
  const sc = c.securityContext;
  assert.deepStrictEqual(sc.capabilities.drop, ['ALL']);
  assert.deepStrictEqual([...sc.capabilities.add].sort(), ['BPF', 'DAC_READ_SEARCH', 'PERFMON', 'SYS_PTRACE', 'SYS_RESOURCE']);
  for (const cap of sc.capabilities.add)
    assert.match(text, new RegExp(`# ${cap}: `), `${cap} is justified in a comment`);
  assert.strictEqual(sc.privileged, false);
  assert.strictEqual(sc.allowPrivilegeEscalation, false);
  assert.strictEqual(sc.readOnlyRootFilesystem, true);
  assert.strictEqual(sc.seccompProfile.type, 'Unconfined');
  assert.strictEqual(sc.appArmorProfile.type, 'Unconfined');
  for (const k of ['requests', 'limits']) for (const r of ['cpu', 'memory']) assert.ok(c.resources[k][r], `resources.${k}.${r}`);
  for (const v of ['V8WALK_CLICKHOUSE_USER', 'V8WALK_CLICKHOUSE_PASSWORD']) {
    const e = c.env.find((x) => x.name === v);
    assert.ok(e && e.valueFrom.secretKeyRef.name === 'v8walk-clickhouse', `${v} from the Secret`);
  }
  const spool = c.args[c.args.indexOf('--spool') + 1];
  const mount = c.volumeMounts.find((m) => m.mountPath === spool);
  assert.ok(mount, `the spool ${spool} is on a volume`);
  const vol = pod.volumes.find((v) => v.name === mount.name);
  assert.ok(vol.hostPath || vol.emptyDir, 'a hostPath or an emptyDir');
});

test("the agent's command line uses only options v8walk --help lists, as the fleet agent", async () => {
  const { documents } = await validate(text, 'v8walk-agent.yaml');
  const { c } = agent(documents);
  const help = spawnSync(v8walk, ['--help'], { encoding: 'utf8' }).stdout;
  assert.ok(help, `${v8walk} --help`);
  for (const o of c.args.filter((a) => a.startsWith('--')))
    assert.ok(new RegExp(`\\s${o}[\\s,=]`).test(help), `${o} is not in v8walk --help`);
  for (const o of ['--all-node', '--period', '--export']) assert.ok(c.args.includes(o), o);
  assert.match(c.args[c.args.indexOf('--export') + 1], /^clickhouses?:\/\//);
});
