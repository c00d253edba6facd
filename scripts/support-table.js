#!/usr/bin/env node
// support-table.js — turn the version matrix's last run (build/matrix/*.json, written by
// tests/e2e/matrix-reporter.js) into the support table between the markers in docs/support.md. Each
// column's tests are named exactly in tests/e2e/capabilities.js; a name missing from a build's
// results (a test renamed or deleted, or a pass that did not run) is an error and no table is
// written, so a column cannot lose a test silently.
//   --arm64: the arm64 rows instead (`make check-arm64`'s results, build/arm64/matrix/*.json, one
//   per build and run, each row dated by its run), in their own block of docs/support.md; a build
//   this run did not include keeps the row an earlier run wrote (a full run takes hours under
//   emulation, so the builds' rows come from runs of different days), unless the columns changed
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { readBlock, writeBlock } = require('./lib/readme-block');

const root = path.resolve(__dirname, '..');
const SUPPORT_DOC = path.join(root, 'docs', 'support.md');

// The result names a capability counts in one build's record: its listed tests, and with `pass`,
// every result of that pass.
function namesOf(record, cap) {
  const ran = (n) => n in record.results && record.results[n] !== 'unselected';
  const names = new Set(cap.tests.filter(ran));
  if (cap.pass) for (const n of Object.keys(record.results)) if (n.startsWith(cap.pass) && ran(n)) names.add(n);
  return [...names];
}

// Every listed test a build's record lacks (or holds as left out by a name pattern: not run):
// "LABEL: COLUMN: TEST NAME" lines.
function missingTests(records, capabilities) {
  const missing = [];
  for (const r of records)
    for (const cap of capabilities)
      for (const n of cap.tests)
        if (!(n in r.results) || r.results[n] === 'unselected') missing.push(`${r.label}: ${cap.column}: ${n}`);
  return missing;
}

function plural(n, word) { return `${n} ${word}${n === 1 ? '' : 's'}`; }

function cell(record, cap) {
  const names = namesOf(record, cap);
  const ran = names.filter((n) => record.results[n] !== 'skip');
  if (!ran.length) return '—';
  const skipped = names.length - ran.length;
  const failed = ran.filter((n) => record.results[n] !== 'pass');
  if (failed.length) return `✗ (${failed.length}/${ran.length} failing)`;
  return `✓ (${plural(ran.length, 'test')}${skipped ? `, ${skipped} not applicable` : ''})`;
}

// official builds by version, Debian's after them
function byBuild(a, b) {
  const rank = (label) => (/Debian/.test(label) ? 1 : 0);
  return rank(a) - rank(b) || a.localeCompare(b, 'en', { numeric: true });
}

// The table; `kept`: rows of an earlier run ({label, line}) for builds the records lack.
function tableLines(records, capabilities, dated = false, kept = []) {
  const label = (r) => (dated ? `${r.label}, ${r.date || 'undated'}` : r.label);
  const rows = records.map((r) => ({ label: r.label, line: `| ${label(r)} | ${capabilities.map((c) => cell(r, c)).join(' | ')} |` }));
  const fresh = new Set(rows.map((r) => r.label));
  const all = dated ? [...rows, ...kept.filter((k) => !fresh.has(k.label))].sort((a, b) => byBuild(a.label, b.label)) : rows;
  return [
    `| Node build | ${capabilities.map((c) => c.column).join(' | ')} |`,
    `|---|${capabilities.map(() => '---').join('|')}|`,
    ...all.map((r) => r.line),
  ];
}

// The dated rows of a table block (as tableLines writes them) whose header is `header`: {label,
// line} each; none when the columns differ (an old row cannot say what a new column holds).
function keptRows(body, header) {
  const lines = body.split('\n');
  if (!lines.includes(header)) return [];
  return lines.map((line) => /^\| (.+), (\d{4}-\d{2}-\d{2}|undated) \|/.exec(line))
    .filter(Boolean).map((m) => ({ label: m[1], line: m.input }));
}

function readRecords(dir) {
  const records = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    : [];
  // Debian's builds after the official ones
  const rank = (r) => (r.order ?? 0) + (/Debian/.test(r.label) ? 1000 : 0);
  return records.sort((a, b) => rank(a) - rank(b) || a.label.localeCompare(b.label, 'en', { numeric: true }));
}

function main() {
  const arm64 = process.argv.includes('--arm64');
  const capabilities = require(path.join(root, 'tests', 'e2e', 'capabilities.js'));
  const dir = arm64 ? path.join('build', 'arm64', 'matrix') : path.join('build', 'matrix');
  const records = readRecords(path.join(root, dir));
  if (!records.length) {
    console.error(`support-table: no matrix results in ${dir} (run \`make ${arm64 ? 'check-arm64' : 'check'}\` first)`);
    process.exit(1);
  }
  const missing = missingTests(records, capabilities);
  if (missing.length) {
    console.error('support-table: tests/e2e/capabilities.js names tests that did not run (renamed or ' +
      'deleted? update capabilities.js); docs/support.md is left unchanged:\n  ' + missing.join('\n  '));
    process.exit(1);
  }
  const block = arm64 ? 'support-table-arm64' : 'support-table';
  const kept = arm64 ? keptRows(readBlock(block, SUPPORT_DOC).body, tableLines([], capabilities)[0]) : [];
  const lines = tableLines(records, capabilities, arm64, kept);
  const stamp = arm64
    ? 'Generated by `scripts/support-table.js --arm64` from `make check-arm64`, each row from the run on the day it names,' +
      ' in the emulated arm64 machine; — means none of its tests applies to that build.'
    : `Generated by \`scripts/support-table.js\` from the matrix run of ${new Date().toISOString().slice(0, 10)}` +
      ' (`make check`); — means none of its tests applies to that build.';
  writeBlock(block, '\n' + lines.join('\n') + '\n\n' + stamp + '\n', SUPPORT_DOC);
  console.log(lines.join('\n'));
}

if (require.main === module) main();
module.exports = { namesOf, missingTests, cell, tableLines, keptRows };
