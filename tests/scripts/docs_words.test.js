// docs_words.test.js — the documents say what v8walk is now, not how it came to be: README.md,
// every page of docs/, the man page and bench/WORKLOADS.md hold none of the words of how the project
// is worked on ("stop 12", "this stop", "issue 13", "session", "the code before") and no commit hash
// used as history. docs/cost.md may name the commit its figures were measured at ("at commit
// abc1234", "v8walk at commit abc1234", a bench/results/DATE-COMMIT.md file): that labels a
// measurement. `session.c`/`session.h` are file names, not the word.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

const WORDS = [
  /\bstops? \d+\b/gi,
  /\bthis stop\b/gi,
  /\bissues? #?\d+\b/gi,
  /\bsessions?\b(?!\.[ch]\b)/gi,
  /\bthe code before\b/gi,
];
// a hex token of 7 to 40 digits holding both a digit and a letter, not an address (0x…, +0x…)
const HASH = /(?<![\w+.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
// where docs/cost.md may name a commit: the label of a measurement, or a results file's name
const LABELLED = /(?:\bat commit |\bcommit |bench\/results\/\d{4}-\d{2}-\d{2}-)$/;

function documents() {
  const files = [path.join(root, 'README.md'), path.join(root, 'bench', 'WORKLOADS.md')];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(md|1)$/.test(e.name)) files.push(p);
    }
  };
  walk(path.join(root, 'docs'));
  return files;
}

// "FILE:LINE: text" for every forbidden word or history hash in one document's text.
function findHistory(text, file = 'text') {
  const found = [];
  const allowHashes = file.endsWith(path.join('docs', 'cost.md'));
  text.split('\n').forEach((line, i) => {
    const at = `${path.relative(root, file)}:${i + 1}`;
    for (const re of WORDS) for (const m of line.matchAll(re)) found.push(`${at}: "${m[0]}"`);
    for (const m of line.matchAll(HASH)) {
      if (allowHashes && LABELLED.test(line.slice(0, m.index))) continue;
      found.push(`${at}: "${m[0]}" (a commit hash?)`);
    }
  });
  return found;
}

test('the patterns catch what they are for', () => {
  for (const s of ['as in stop 29', 'This stop\'s change', 'see issue 13', 'a session of work', 'faster than the code before',
    'the code before (4ef89b7)', 'since 42bbdaf'])
    assert.ok(findHistory(s).length, s);
  for (const s of ['a stop of 10 us', 'cli/session.c', 'at 0x1d5f8de', 'libc.so.6+0x27249', 'deadline', '2026-11-28',
    'build-id', 'the thread stops', 'V8 12.4.254.21'])
    assert.deepStrictEqual(findHistory(s), [], s);
  assert.deepStrictEqual(findHistory('measured at commit 5d0ec04', path.join(root, 'docs', 'cost.md')), []);
  assert.ok(findHistory('fixed in 5d0ec04', path.join(root, 'docs', 'cost.md')).length);
});

test('the documents hold no words of how the project is worked on, and no commit hashes as history', () => {
  const files = documents();
  assert.ok(files.some((f) => f.endsWith('v8walk.1')) && files.length > 8, `documents: ${files.length}`);
  const found = files.flatMap((f) => findHistory(fs.readFileSync(f, 'utf8'), f));
  assert.deepStrictEqual(found, []);
});
