// agent_unit.test.js — contrib/v8walk-agent.service, the fleet agent's systemd unit, is one
// systemd accepts (`systemd-analyze verify`, with ExecStart pointed at the built binary) and its
// command line uses only options `v8walk --help` lists, so a renamed option or a misspelt
// directive fails here rather than on a host at deploy time.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..', '..');
const unitPath = path.join(root, 'contrib', 'v8walk-agent.service');
const v8walk = process.env.V8WALK || path.join(root, 'build', 'v8walk');

function execStart(text) {
  const m = /^ExecStart=((?:.*\\\n)*.*)$/m.exec(text);
  assert.ok(m, 'the unit has an ExecStart line');
  return m[1].replace(/\\\n/g, ' ').trim().split(/\s+/);
}

test('the agent unit is valid for systemd (systemd-analyze verify)', () => {
  const which = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' });
  assert.strictEqual(which.status, 0, 'systemd-analyze is missing: scripts/setup-deps.sh installs systemd');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-unit-'));
  const text = fs.readFileSync(unitPath, 'utf8').replace('/usr/local/bin/v8walk', v8walk);
  const copy = path.join(dir, 'v8walk-agent.service');
  fs.writeFileSync(copy, text);
  const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  // verify also reports on other units of the machine it happens to load: keep only ours
  const ours = (r.stderr + r.stdout).split('\n').filter((l) => l.includes('v8walk-agent.service'));
  assert.deepStrictEqual(ours, [], ours.join('\n'));
});

test("the agent unit's command line uses only options v8walk --help lists", () => {
  const help = spawnSync(v8walk, ['--help'], { encoding: 'utf8' }).stdout;
  const argv = execStart(fs.readFileSync(unitPath, 'utf8'));
  assert.strictEqual(argv[0], '/usr/local/bin/v8walk');
  const options = argv.filter((a) => a.startsWith('--'));
  assert.ok(options.length >= 5, argv.join(' '));
  for (const o of options) assert.ok(new RegExp(`\\s${o}[\\s,=]`).test(help), `${o} is not in v8walk --help`);
});
