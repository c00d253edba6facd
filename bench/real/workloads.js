// workloads.js — the list of real workloads the benchmarks run (bench/real_cost.js, bench/oracle.js):
// name, script, what it covers. kind 'loop': the script runs the harness loop (lib/harness.js) and
// answers the control protocol when WORKLOAD_CONTROL=1; kind 'server': the script is a server the
// benchmark loads with lib/load.js. quick: part of the benchmarks' --quick set. pairPhaseS: the
// length of real_cost.js's throughput pairs' phases where 3 s is too short for the target's own
// rate: acorn's parse of 9 MB takes 2.0-3.2 s, and its unprofiled rate over 3 s windows varies by
// an SD of 12.6 % (4.4 % over 12 s windows; 8 pairs of 12 s gave a 95 % CI of ±0.057 where 3 s
// gave ±0.19). tsc's compiles take 250-800 ms in a cycle of ~7.5 s (an SD of 11.6 % over 3 s
// windows), but a long-running tsc target's rate also drifts by ±15 % over minutes: 12 s pairs
// gave ±0.15, as 3 s pairs did, so it keeps 3 s.
'use strict';
const path = require('node:path');

const dir = path.join(__dirname, 'workloads');
const WORKLOADS = [
  { name: 'tsc', file: 'tsc.js', kind: 'loop', quick: true, covers: 'a large program: the TypeScript compiler, thousands of hot functions' },
  { name: 'acorn', file: 'acorn.js', kind: 'loop', quick: true, pairPhaseS: 12, covers: 'deep recursion (100+ frames) parsing a 9 MB file' },
  { name: 'deep', file: 'deep.js', kind: 'loop', quick: false, covers: 'deliberately deep recursion (200+ frames), target-side gap probe' },
  { name: 'terser', file: 'terser.js', kind: 'loop', quick: false, covers: 'minified code: terser runs from its 1.1 MB one-line bundle' },
  { name: 'bundle', file: 'bundle.js', kind: 'loop', quick: true, covers: 'an 11.8 MB one-line bundled script (all code on line 1)' },
  { name: 'prettier', file: 'prettier.mjs', kind: 'loop', quick: false, covers: 'ES modules: prettier 3 formatting minified code' },
  { name: 'markdown', file: 'markdown.mjs', kind: 'loop', quick: false, covers: 'ES modules: markdown-it rendering' },
  { name: 'async', file: 'async.mjs', kind: 'loop', quick: false, covers: 'async functions and generators resumed from microtasks' },
  { name: 'express', file: 'express-server.js', kind: 'server', quick: true, covers: 'a server under loopback load (autocannon)',
    routes: ['/page/3', '/api/items?n=120', '/search?q=frame', '/page/11', '/api/items?n=40'] },
  { name: 'webpack', file: 'webpack.js', kind: 'loop', quick: false, covers: 'a bundler: webpack 5 bundling 48 generated modules and four packages' },
  { name: 'handlebars', file: 'handlebars.js', kind: 'loop', quick: false, covers: 'a template engine: Handlebars compiling and rendering pages' },
  { name: 'postcss', file: 'postcss.js', kind: 'loop', quick: false, covers: "a CSS processor: PostCSS + Autoprefixer on Bootstrap's stylesheet" },
  { name: 'highlight', file: 'highlight.js', kind: 'loop', quick: false, covers: 'regular expressions: highlight.js highlighting and guessing languages' },
  { name: 'json', file: 'json.js', kind: 'loop', quick: false, covers: "JSON: parse, Ajv's validator, transform and stringify of a 4 MB document" },
  { name: 'lunr', file: 'lunr.js', kind: 'loop', quick: false, covers: 'an in-memory search index: lunr building, loading and querying' },
  { name: 'pack', file: 'pack.js', kind: 'loop', quick: false, covers: "zlib and crypto: node-tar's gzipped tarball of four packages, ssri's integrity, the listing" },
  { name: 'koa', file: 'koa-server.js', kind: 'server', quick: false, covers: 'an async server: Koa middleware and handlers awaiting many small promises',
    routes: ['/user/7', '/feed/42', '/top?n=25', '/user/311', '/feed/5'] },
].map((w) => ({ ...w, script: path.join(dir, w.file) }));

// The workloads a benchmark runs: `--workloads a,b` in ARGV, else the quick set under --quick, else all.
function chosen(argv) {
  const i = argv.indexOf('--workloads');
  if (i >= 0) {
    const names = (argv[i + 1] || '').split(',');
    for (const n of names) byName(n);
    return WORKLOADS.filter((w) => names.includes(w.name));
  }
  return argv.includes('--quick') ? WORKLOADS.filter((w) => w.quick) : WORKLOADS;
}

function byName(name) {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`no workload '${name}' (have: ${WORKLOADS.map((x) => x.name).join(', ')})`);
  return w;
}

module.exports = { WORKLOADS, byName, chosen };
