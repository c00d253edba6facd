// highlight.js — regular expressions: highlight.js (its grammars are regular expressions) highlights
// source files the packages ship — JavaScript (acorn's build), TypeScript (TypeScript's lib
// .d.ts), CSS (Bootstrap's), Markdown, JSON (a package.json) — and guesses the language of 24
// snippets by trying every grammar it has (highlightAuto). One unit = every file once + the
// guesses (work counted in files and snippets).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const hljs = require('highlight.js');
const { run } = require('../lib/harness');

const read = (file, max) => fs.readFileSync(path.join(__dirname, '..', 'node_modules', file), 'utf8').slice(0, max);
const files = [
  ['javascript', read('acorn/dist/acorn.js', 120000)],
  ['typescript', read('typescript/lib/lib.es5.d.ts', 120000)],
  ['css', read('bootstrap/dist/css/bootstrap.css', 80000)],
  ['markdown', read('typescript/README.md', 20000) + read('markdown-it/README.md', 20000)],
  ['json', read('typescript/package.json', 20000) + read('webpack/package.json', 20000)],
];
const snippets = [];
for (let i = 0; i < 24; i++) {
  const [, text] = files[i % files.length];
  const at = (i * 7919) % Math.max(1, text.length - 1500);
  snippets.push(text.slice(at, at + 1500));
}
let bytes = 0;

const h = run({
  name: 'highlight', unit: 'passes', fine: true,
  iterate() {
    for (const [language, text] of files) {
      bytes += hljs.highlight(text, { language, ignoreIllegals: true }).value.length;
      h.step();
    }
    for (const s of snippets) {
      bytes += hljs.highlightAuto(s).value.length;
      h.step();
    }
  },
});
