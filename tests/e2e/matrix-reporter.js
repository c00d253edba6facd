// matrix-reporter.js — a node:test reporter that records each test's outcome for the version
// matrix (scripts/support-table.js turns the records into the README's support table). Writes
// one JSON object: {label, node, results: {test name: "pass" | "fail"}}.
'use strict';
const fs = require('node:fs');

module.exports = async function* matrixReporter(source) {
  const results = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details && event.data.details.type === 'suite') continue;
    if (event.data.skip || event.data.todo) continue;
    const prev = results[event.data.name];
    results[event.data.name] = prev === 'fail' || event.type === 'test:fail' ? 'fail' : 'pass';
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
