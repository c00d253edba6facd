// matrix-reporter.js — a node:test reporter that records each test's outcome for the version
// matrix (scripts/support-table.js turns the records into docs/support.md's table). Writes
// one JSON object: {label, node, results: {test name: "pass" | "fail" | "skip"}} ("skip": the
// test skipped itself, e.g. a tier this node lacks; "unselected": a name pattern left it out, it
// did not run) and the day it ran (`date`). In the suite's eBPF pass (V8WALK_MODE=bpf)
// every test name is recorded as "[bpf] name". A failure's message is kept too (`failures`: what
// scripts/e2e-failures.js prints at the end of a run, where a CI log's tail shows it).
'use strict';
const fs = require('node:fs');

// how node's test runner (Node 20, the harness's) reports a test --test-name-pattern left out
const NOT_SELECTED = 'test name does not match pattern';
const RANK = { unselected: 0, skip: 1, pass: 2, fail: 3 };

module.exports = async function* matrixReporter(source) {
  const results = {};
  const failures = [];
  const pass = process.env.V8WALK_MODE === 'bpf' ? '[bpf] ' : '';
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details && event.data.details.type === 'suite') continue;
    if (event.data.todo) continue;
    const name = event.data.name.startsWith(pass) ? event.data.name : pass + event.data.name;
    const prev = results[name];
    const now = event.type === 'test:fail' ? 'fail' : event.data.skip === NOT_SELECTED ? 'unselected'
      : event.data.skip ? 'skip' : 'pass';
    if (now === 'fail') {
      const err = event.data.details && event.data.details.error;
      const cause = err && err.cause ? err.cause : err;
      const text = cause ? String(cause.message || cause) : 'failed';
      failures.push({ name, error: text.slice(0, 4000), location: `${event.data.file || ''}:${event.data.line || ''}` });
    }
    // a name reported twice keeps its worst outcome
    results[name] = prev !== undefined && RANK[prev] > RANK[now] ? prev : now;
  }
  const out = process.env.MATRIX_RESULT;
  if (out) {
    let record = { label: process.env.MATRIX_LABEL || '', node: process.env.MATRIX_NODE || '',
      date: new Date().toISOString().slice(0, 10), results: {} };
    try { record = JSON.parse(fs.readFileSync(out, 'utf8')); } catch { /* first file of the run */ }
    Object.assign(record.results, results);
    record.failures = (record.failures || []).concat(failures.map((f) => ({ ...f, mode: process.env.V8WALK_MODE || '' })));
    fs.writeFileSync(out, JSON.stringify(record, null, 1) + '\n');
  }
  yield '';
};
