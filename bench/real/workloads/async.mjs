// async.mjs — async code: a pipeline of async functions over 64 generated documents per unit —
// each document goes through awaited stages (a Markdown render, a JSON round trip, a text search,
// a checksum), with async generators and Promise.all fan-out, so that the hot stacks are async
// functions resumed from the microtask queue rather than a plain call chain.
import { createRequire } from 'node:module';
import MarkdownIt from 'markdown-it';

const require = createRequire(import.meta.url);
const { run } = require('../lib/harness.js');
const { markdown } = require('../lib/gen.js');

const DOCS = 64;
const docs = Array.from({ length: DOCS }, (_, i) => markdown(2000 + (i % 8) * 500, 100 + i));
const md = new MarkdownIt();

async function renderStage(text) { await null; return md.render(text); }
async function jsonStage(html) {
  await null;
  const obj = JSON.parse(JSON.stringify({ html, words: html.split(/\s+/).slice(0, 200) }));
  return obj;
}
async function searchStage(obj) {
  await null;
  let hits = 0;
  for (const w of obj.words) if (/^<h\d>|stack|frame/.test(w)) hits++;
  return { ...obj, hits };
}
async function checksumStage(obj) {
  await null;
  let h = 0;
  for (let i = 0; i < obj.html.length; i++) h = (Math.imul(h, 31) + obj.html.charCodeAt(i)) | 0;
  return h ^ obj.hits;
}
async function* documents() { for (const d of docs) { await null; yield d; } }
async function process1(text) { return checksumStage(await searchStage(await jsonStage(await renderStage(text)))); }

let sink = 0;
const h = run({
  name: 'async', unit: 'batches', fine: true,
  async iterate() {
    const pending = [];
    for await (const d of documents()) pending.push(process1(d).then((x) => { h.step(); return x; }));
    for (const x of await Promise.all(pending)) sink ^= x;
  },
});
