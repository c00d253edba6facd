// prettier.mjs — an ES-module program on minified input: prettier 3 (loaded as ESM, index.mjs and
// its plugins are .mjs) formats markdown-it's 100 KB minified UMD build (one very long line) and
// its 119 KB ESM source. One unit = formatting one of the two, alternately.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import * as prettier from 'prettier';

const require = createRequire(import.meta.url);
const { run } = require('../lib/harness.js');

const inputs = [
  fs.readFileSync(new URL('../node_modules/markdown-it/dist/browser/markdown-it.umd.min.js', import.meta.url), 'utf8'),
  fs.readFileSync(new URL('../node_modules/markdown-it/dist/markdown-it.mjs', import.meta.url), 'utf8'),
];
let bytesOut = 0;

run({
  name: 'prettier', unit: 'formats',
  async iterate(i) {
    const out = await prettier.format(inputs[i % 2], { parser: 'babel', printWidth: 100 });
    bytesOut += out.length;
  },
});
