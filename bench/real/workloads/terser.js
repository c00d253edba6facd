// terser.js — minified code in, minified code out: terser (its own 1.1 MB single-line
// dist/bundle.min.js is the code that runs) minifies markdown-it's 163 KB CommonJS build with
// compression and mangling. One unit = one minify of the whole file (a promise: terser is async).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const terser = require('terser');
const { run } = require('../lib/harness');

const input = fs.readFileSync(path.join(__dirname, '..', 'node_modules', 'markdown-it', 'dist', 'markdown-it.cjs.js'), 'utf8');
let bytesOut = 0;

run({
  name: 'terser', unit: 'minifies',
  async iterate() {
    const out = await terser.minify(input, { compress: { passes: 1 }, mangle: true, module: false });
    bytesOut += out.code.length;
  },
});
