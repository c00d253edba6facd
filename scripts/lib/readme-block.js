// readme-block.js — the generated blocks of the documents (README.md by default; docs/support.md,
// docs/cost.md): text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`, read and replaced by
// the scripts that generate them.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const README = path.resolve(__dirname, '..', '..', 'README.md');

function markers(name) { return [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`]; }

// The block's text (between the markers, without them); throws when README.md lacks them.
function readBlock(name, file = README) {
  const text = fs.readFileSync(file, 'utf8');
  const [begin, end] = markers(name);
  const i = text.indexOf(begin), j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${path.basename(file)} lacks the ${begin} … ${end} markers`);
  return { text, from: i + begin.length, to: j, body: text.slice(i + begin.length, j) };
}

// Replace the block's text with body (which starts and ends with a newline).
function writeBlock(name, body, file = README) {
  const b = readBlock(name, file);
  fs.writeFileSync(file, b.text.slice(0, b.from) + body + b.text.slice(b.to));
}

module.exports = { README, readBlock, writeBlock };
