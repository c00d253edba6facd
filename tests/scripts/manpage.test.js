// manpage.test.js — docs/v8walk.1 documents what the binary does: every option of `v8walk --help`,
// `report --help` and `schema --help` has an item in OPTIONS with the same numeric defaults, no
// item documents an option the help does not know, every exit status the help lists is in EXIT
// STATUS, every environment variable the C sources read is in ENVIRONMENT, and `mandoc -T lint`
// finds nothing at warning level or above.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const h = require(path.join(root, 'scripts', 'lib', 'help-text.js'));

const helps = h.helpTexts();
const man = h.readManPage();
const items = h.manOptionItems(man);

// Every option a help text names: its option lines, and the usage lines of the subcommands
// (schema lists its options only there).
function helpOptions() {
  const names = new Map(); // name → the entry's text (for its defaults)
  for (const [which, text] of Object.entries(helps)) {
    for (const e of h.optionEntries(text)) for (const n of e.names) names.set(n, (names.get(n) || '') + '\n' + e.text);
    if (which !== 'main')
      for (const line of h.usageLines(text))
        for (const m of line.matchAll(/\[(--[\w-]+)/g)) if (!names.has(m[1])) names.set(m[1], '');
  }
  return names;
}

test('the help texts were read (the parser finds their options)', () => {
  const names = helpOptions();
  for (const o of ['--pid', '-p', '--rate', '--core', '--export', '--from', '--where', '--cluster', '--ttl-days', '--help'])
    assert.ok(names.has(o), `${o} found in the help texts`);
  assert.ok(names.size > 50, `${names.size} options found`);
});

test('every option of v8walk --help (and of report and schema) has an item in the man page', () => {
  const missing = [...helpOptions().keys()].filter((n) => !items.has(n));
  assert.deepStrictEqual(missing, [], `docs/v8walk.1 lacks an .It item for ${missing.join(', ')}`);
});

test("the man page's items give the defaults the help gives", () => {
  const wrong = [];
  for (const [name, text] of helpOptions()) {
    const item = items.get(name) || '';
    for (const d of h.numericDefaults(text))
      if (!new RegExp(`default[^.]*?\\b${d.replace('.', '\\.')}\\b|\\b${d.replace('.', '\\.')}\\b[^.]*default`, 's').test(item))
        wrong.push(`${name}: the help says default ${d}`);
  }
  assert.deepStrictEqual(wrong, []);
});

test('the man page documents no option the help does not know', () => {
  const all = Object.values(helps).join('\n');
  const stale = [...items.keys()].filter((n) => !new RegExp(`(^|[\\s,(\\[])${n}\\b`, 'm').test(all));
  assert.deepStrictEqual(stale, [], 'options in docs/v8walk.1 that no help text names');
});

test('every exit status of --help is in EXIT STATUS', () => {
  const section = h.manSection(man, 'EXIT STATUS');
  const codes = h.exitStatuses(helps.main);
  assert.ok(codes.includes('0') && codes.includes('127'), `exit statuses read from --help: ${codes}`);
  const missing = codes.filter((c) => !new RegExp(`\\bSy ${c}\\b`).test(section));
  assert.deepStrictEqual(missing, [], 'exit statuses --help lists and docs/v8walk.1 does not');
});

test('every environment variable the C sources read is in ENVIRONMENT', () => {
  const names = new Set();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!['tests', 'fuzz', 'bench', 'build', 'node_modules', '.git'].includes(e.name)) walk(p);
      } else if (e.name.endsWith('.c')) {
        const text = fs.readFileSync(p, 'utf8');
        for (const m of text.matchAll(/\b(?:secure_)?getenv\("([A-Z0-9_]+)"\)/g)) names.add(m[1]);
        for (const m of text.matchAll(/\benviron_value\([^)]*"([A-Z0-9_]+)"/g)) names.add(m[1]);
      }
    }
  };
  walk(root);
  assert.ok(names.has('V8WALK_CLICKHOUSE_PASSWORD'), `variables found: ${[...names]}`);
  const section = h.manSection(man, 'ENVIRONMENT');
  const missing = [...names].filter((n) => !new RegExp(`^\\.It Ev .*\\b${n}\\b`, 'm').test(section));
  assert.deepStrictEqual(missing, [], 'variables v8walk reads that docs/v8walk.1 does not list');
});

test('mandoc -T lint finds nothing at warning level or above', () => {
  const r = spawnSync('mandoc', ['-T', 'lint', '-W', 'warning', h.MAN_PAGE], { encoding: 'utf8' });
  assert.ok(!r.error, 'mandoc is missing: scripts/setup-deps.sh installs it');
  assert.strictEqual(r.stdout + r.stderr, '', 'mandoc -T lint');
  assert.strictEqual(r.status, 0);
});

test('--help ends by pointing to the man page', () => {
  const last = helps.main.trimEnd().split('\n').pop();
  assert.match(last, /man v8walk/);
});
