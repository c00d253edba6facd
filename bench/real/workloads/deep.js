// deep.js — deliberately deep recursion: a recursive-descent evaluator walks generated expression
// trees 200 levels deep, and at the bottom of each descent runs a hot loop that calls the gap probe
// (harness tick) — so the target's own record of how long each sample stopped it is taken with 200+
// JavaScript frames on the stack. One unit = 400 descents.
'use strict';
const { run, rng } = require('../lib/harness');

const DEPTH = Number(process.env.DEEP_DEPTH || 200);
const r = rng(7);

function build(depth) {
  if (depth === 0) return { op: 'leaf', value: Math.floor(r() * 100) };
  return { op: ['add', 'mul', 'neg', 'pick'][depth % 4], left: build(depth - 1), k: Math.floor(r() * 9) + 1 };
}
const trees = Array.from({ length: 8 }, () => build(DEPTH));

function leafWork(value) {
  let acc = value;
  for (let i = 0; i < 2000; i++) { acc = (acc * 31 + i) % 1000003; if ((i & 15) === 0) h.tick(); }
  return acc;
}
function evalAdd(node) { return (evaluate(node.left) + node.k) | 0; }
function evalMul(node) { return Math.imul(evaluate(node.left), node.k) | 0; }
function evalNeg(node) { return -evaluate(node.left) | 0; }
function evalPick(node) { const v = evaluate(node.left); return node.k & 1 ? v : v ^ node.k; }
function evaluate(node) {
  switch (node.op) {
    case 'leaf': return leafWork(node.value);
    case 'add': return evalAdd(node);
    case 'mul': return evalMul(node);
    case 'neg': return evalNeg(node);
    default: return evalPick(node);
  }
}

let sink = 0;
const h = run({
  name: 'deep', unit: 'batches of 400 descents', fine: true,
  iterate(i) {
    for (let n = 0; n < 400; n++) sink ^= evaluate(trees[(i + n) & 7]);
  },
});
