// matrix-reporter.js — a node:test reporter that records each test's outcome for the version
// matrix (scripts/support-table.js turns the records into the README's support table). Writes
// one JSON object: {label, node, results: {test name: "pass" | "fail" | "skip"}} ("skip": the
// test skipped itself, e.g. a tier this node lacks). In the suite's eBPF pass (V8WALK_MODE=bpf)
// every test name is recorded as "[bpf] name".
'use strict';
const fs = require('node:fs');

module.exports = async function* matrixReporter(source) {
  const results = {};
  const pass = process.env.V8WALK_MODE === 'bpf' ? '[bpf] ' : '';
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details && event.data.details.type === 'suite') continue;
    if (event.data.todo) continue;
    const name = event.data.name.startsWith(pass) ? event.data.name : pass + event.data.name;
    const prev = results[name];
    const now = event.type === 'test:fail' ? 'fail' : event.data.skip ? 'skip' : 'pass';
    results[name] = prev === 'fail' || now === 'fail' ? 'fail' : prev === 'pass' || now === 'pass' ? 'pass' : 'skip';
  }
  const out = process.env.MATRIX_RESULT;
  if (out) {
    let record = { label: process.env.MATRIX_LABEL || '', node: process.env.MATRIX_NODE || '', results: {} };
    try { record = JSON.parse(fs.readFileSync(out, 'utf8')); } catch { /* first file of the run */ }
    Object.assign(record.results, results);
    fs.writeFileSync(out, JSON.stringify(record, null, 1) + '\n');
  }
  yield '';
};
