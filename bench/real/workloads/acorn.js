// acorn.js — deep recursion on a big input: acorn parses a generated 9 MB JavaScript file (nested
// functions, classes and expressions nested up to 24 levels, which acorn's recursive descent turns
// into stacks of 100+ frames). One unit = one full parse. acorn's onToken callback is the gap probe
// (harness tick): the target's own view of how long each sample stopped it.
'use strict';
const acorn = require('acorn');
const { run } = require('../lib/harness');
const { javascript } = require('../lib/gen');

const BYTES = Number(process.env.ACORN_BYTES || 9e6);
const source = javascript(BYTES);
let nodes = 0;

const h = run({
  name: 'acorn', unit: 'parses', fine: true,
  iterate() {
    const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'script', locations: true, onToken: () => h.tick() });
    nodes += ast.body.length;
  },
});
