// lunr.js — an in-memory search index: lunr builds a full-text index (its tokenizer, the Porter
// stemmer's regular expressions, stop words, the inverted index and term vectors) of 600 generated
// documents, serialises it and loads it back, and runs 300 queries on it (terms, fields, boosts,
// wildcards, fuzzy matches). One unit = one build + load + the queries (work counted in documents
// and queries).
'use strict';
const lunr = require('lunr');
const { run, rng } = require('../lib/harness');
const { markdown } = require('../lib/gen');

const DOCS = 600;
const text = markdown(900000, 21).split(/\n(?=#)/);
const docs = Array.from({ length: DOCS }, (_, i) => ({ id: String(i), title: text[i % text.length].split('\n')[0], body: text[(i * 7) % text.length] + text[(i * 13 + 1) % text.length] }));
const r = rng(5);
const words = [...new Set(docs.slice(0, 50).flatMap((d) => d.body.toLowerCase().match(/[a-z]{5,}/g) || []))];
const pick = () => words[Math.floor(r() * words.length)];
const queries = Array.from({ length: 300 }, (_, i) => {
  switch (i % 5) {
    case 0: return pick();
    case 1: return `title:${pick()} ${pick()}`;
    case 2: return `${pick().slice(0, 3)}*`;
    case 3: return `${pick()}~1 +${pick()}`;
    default: return `${pick()}^10 ${pick()} -${pick()}`;
  }
});
let hits = 0;

const h = run({
  name: 'lunr', unit: 'indexes', fine: true,
  iterate() {
    const built = lunr(function build() {
      this.ref('id');
      this.field('title', { boost: 5 });
      this.field('body');
      for (const d of docs) this.add(d);
    });
    h.step(DOCS);
    const index = lunr.Index.load(JSON.parse(JSON.stringify(built)));
    for (const q of queries) hits += index.search(q).length;
    h.step(queries.length);
  },
});
