// support_table.test.js — docs/support.md's table cannot lose a test silently: every test that
// tests/e2e/capabilities.js names exists in the end-to-end suite (listed without running it, in
// both passes), and scripts/support-table.js refuses results that lack a named test.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const capabilities = require(path.join(root, 'tests', 'e2e', 'capabilities.js'));
const { missingTests, cell, tableLines, keptRows } = require(path.join(root, 'scripts', 'support-table.js'));
const { pattern: arm64Pattern, EXTRA: arm64Extra } = require(path.join(root, 'scripts', 'arm64-part.js'));

// The names of every test of the suite in one pass, as the matrix reporter records them, from a
// run whose name pattern matches nothing (each test is declared and skipped, none runs).
function suiteNames(mode) {
  // a run of its own, not a child of this test runner
  const { NODE_TEST_CONTEXT, ...env } = process.env; // eslint-disable-line no-unused-vars
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-names-'));
  try {
    const out = path.join(dir, 'names.json');
    const e2e = path.join(root, 'tests', 'e2e');
    const files = fs.readdirSync(e2e).filter((f) => f.endsWith('.test.js')).map((f) => path.join(e2e, f));
    const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-name-pattern=^$.',
      `--test-reporter=${path.join(e2e, 'matrix-reporter.js')}`, '--test-reporter-destination=/dev/null', ...files],
    { cwd: root, encoding: 'utf8', env: { ...env, V8WALK_MODE: mode, MATRIX_RESULT: out, MATRIX_LABEL: mode } });
    assert.strictEqual(r.status, 0, r.stderr);
    return JSON.parse(fs.readFileSync(out, 'utf8')).results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('every test capabilities.js names exists in the end-to-end suite', () => {
  const inPtrace = suiteNames('ptrace'), inBpf = suiteNames('bpf');
  const listed = { ...inPtrace, ...inBpf };
  assert.ok(Object.keys(listed).length > 50, `the suite was listed: ${Object.keys(listed).length} names`);
  // the listing's pattern selects none: each is recorded as not run (a file's own entry aside)
  const ran = Object.keys(listed).filter((n) => listed[n] !== 'unselected' && !path.isAbsolute(n.replace(/^\[bpf\] /, '')));
  assert.deepStrictEqual(ran, []);
  const results = Object.fromEntries(Object.keys(listed).map((n) => [n, 'pass']));
  assert.deepStrictEqual(missingTests([{ label: 'suite', results }], capabilities), []);
  // and the arm64 part selects every one of them (scripts/arm64-part.js), by the name each is
  // declared with: as the ptrace pass lists it, and a test of the eBPF pass alone "[bpf] …"
  const part = new RegExp(arm64Pattern());
  const unplain = (n) => (n.startsWith('[bpf] ') ? n.slice(6) : n);
  const declared = new Set([...Object.keys(inPtrace), ...Object.keys(inBpf).filter((n) => !(unplain(n) in inPtrace))]);
  const unselected = capabilities.flatMap((c) => c.tests)
    .filter((n) => ![n, unplain(n)].some((d) => declared.has(d) && part.test(d)));
  assert.deepStrictEqual(unselected, []);
  const named = new Set(capabilities.flatMap((c) => c.tests).map(unplain));
  const plain = new Set(Object.keys(listed).map(unplain));
  assert.deepStrictEqual([...plain].filter((n) => part.test(n) && !named.has(n) &&
    !arm64Extra.some((e) => n.startsWith(e))), [], 'the part selects nothing else');
  assert.deepStrictEqual(arm64Extra.filter((e) => ![...plain].some((n) => n.startsWith(e))), [],
    'each test the part adds exists');
});

test('a test a name pattern left out counts as not run: the table is refused', () => {
  const caps = [{ column: 'c', tests: ['a', 'b'] }, { column: 'p', pass: '[bpf] ', tests: ['[bpf] x'] }];
  const narrowed = { label: 'L', results: { a: 'pass', b: 'unselected', '[bpf] x': 'pass', '[bpf] y': 'unselected' } };
  assert.deepStrictEqual(missingTests([narrowed], caps), ['L: c: b']);
  assert.strictEqual(cell(narrowed, caps[1]), '✓ (1 test)');
});

test('support-table refuses results that lack a named test, and counts skips apart', () => {
  const caps = [{ column: 'c', tests: ['a', 'b'] }, { column: 'p', pass: '[bpf] ', tests: ['[bpf] x'] }];
  const renamed = { label: 'L', results: { a: 'pass', 'b (renamed)': 'pass', '[bpf] x': 'pass' } };
  assert.deepStrictEqual(missingTests([renamed], caps), ['L: c: b']);
  const full = { label: 'L', results: { a: 'pass', b: 'skip', '[bpf] x': 'pass', '[bpf] y': 'fail' } };
  assert.deepStrictEqual(missingTests([full], caps), []);
  assert.strictEqual(cell(full, caps[0]), '✓ (1 test, 1 not applicable)');
  assert.strictEqual(cell(full, caps[1]), '✗ (1/2 failing)');
});

test('arm64 rows: a build the run did not include keeps its earlier row, a build it did gets a new one', () => {
  const caps = [{ column: 'c', tests: ['a'] }];
  const old = tableLines([{ label: 'Node 20.1.0 (official, arm64)', date: '2026-01-01', results: { a: 'fail' } },
    { label: 'Node 22.1.0 (official, arm64)', date: '2026-01-01', results: { a: 'fail' } }], caps, true).join('\n');
  const kept = keptRows(`\n${old}\n\nGenerated by …\n`, tableLines([], caps)[0]);
  assert.deepStrictEqual(kept.map((k) => k.label), ['Node 20.1.0 (official, arm64)', 'Node 22.1.0 (official, arm64)']);
  const now = tableLines([{ label: 'Debian 12 node (libnode, arm64)', date: '2026-02-02', results: { a: 'pass' } },
    { label: 'Node 22.1.0 (official, arm64)', date: '2026-02-02', results: { a: 'pass' } }], caps, true, kept);
  assert.deepStrictEqual(now.slice(2), ['| Node 20.1.0 (official, arm64), 2026-01-01 | ✗ (1/1 failing) |',
    '| Node 22.1.0 (official, arm64), 2026-02-02 | ✓ (1 test) |', '| Debian 12 node (libnode, arm64), 2026-02-02 | ✓ (1 test) |']);
  // other columns: no earlier row stays
  assert.deepStrictEqual(keptRows(old, tableLines([], [...caps, { column: 'd', tests: ['b'] }])[0]), []);
});
