// webpack.js — a bundler: webpack 5 bundles, in production mode without minifying (terser has a
// workload of its own), a generated project of 48 ES modules that import each other and real
// packages (markdown-it's ES modules, acorn, lunr, handlebars' CommonJS build): module resolution,
// parsing (acorn), the dependency graph, tree shaking, module concatenation and code generation.
// The project is written to gen/webpack/ (the same bytes every run); the bundle goes to memory. One
// unit = one compile by a fresh compiler, no cache (work counted in modules built).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const webpack = require('webpack');
const { run, rng } = require('../lib/harness');

const MODULES = 48;
const dir = path.join(__dirname, '..', 'gen', 'webpack');

function writeIfChanged(file, text) {
  try { if (fs.readFileSync(file, 'utf8') === text) return; } catch { /* missing: written below */ }
  fs.writeFileSync(file, text);
}

function project() {
  const r = rng(7);
  fs.mkdirSync(dir, { recursive: true });
  for (let m = 0; m < MODULES; m++) {
    const deps = new Set();
    for (let d = 0; d < 3 && m > 0; d++) deps.add(Math.floor(r() * m));
    let src = [...deps].map((d) => `import { run${d}, Shape${d} } from './m${d}.js';\n`).join('');
    if (m % 12 === 0) src += "import MarkdownIt from 'markdown-it';\nimport * as acorn from 'acorn';\nimport lunr from 'lunr';\nimport Handlebars from 'handlebars';\n";
    src += `export class Shape${m} {\n  constructor(n) { this.n = n; this.parts = []; }\n  add(x) { this.parts.push(x * ${m + 1}); return this; }\n` +
      `  get size() { return this.parts.reduce((a, b) => a + b, 0); }\n}\n`;
    for (let f = 0; f < 14; f++) {
      src += `export function helper${m}_${f}(a, b) {\n  const s = new Shape${m}(a);\n  for (let i = 0; i < b; i++) s.add(i ^ ${f});\n` +
        `  return s.size > ${f * 10} ? \`\${a}-\${b}\` : { a, b, s: s.size };\n}\n`;
    }
    src += `export function unused${m}() { return ${m}; }\n`;
    src += `export function run${m}(x) {\n  let t = helper${m}_${m % 14}(x, 3);\n` +
      [...deps].map((d) => `  t = [t, run${d}(x + 1), new Shape${d}(x).add(1).size];\n`).join('') +
      (m % 12 === 0 ? `  t = [t, new MarkdownIt().render('# m${m}'), acorn.parse('x${m}', { ecmaVersion: 2020 }).type, typeof lunr, Handlebars.compile('{{a}}')({ a: ${m} })];\n` : '') +
      '  return t;\n}\n';
    writeIfChanged(path.join(dir, `m${m}.js`), src);
  }
  writeIfChanged(path.join(dir, 'index.js'), `${Array.from({ length: MODULES }, (_, m) => `import { run${m} } from './m${m}.js';\n`).join('')}` +
    `export const all = [${Array.from({ length: MODULES }, (_, m) => `run${m}`).join(', ')}];\n`);
}

// the output file system: the bundle is kept in memory
function memoryOutput(sink) {
  return {
    mkdir: (p, opts, cb) => (cb || opts)(null),
    writeFile: (p, data, cb) => { sink.bytes += data.length; cb(null); },
    stat: (p, cb) => cb(Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' })),
    join: path.join, dirname: path.dirname, relative: path.relative,
  };
}

project();
const sink = { bytes: 0 };
const config = {
  mode: 'production', context: dir, entry: './index.js', cache: false, devtool: false,
  target: 'node', output: { path: path.join(dir, 'dist'), filename: 'bundle.js', library: { type: 'commonjs2' }, compareBeforeEmit: false },
  resolve: { modules: [path.join(__dirname, '..', 'node_modules')] },
  optimization: { minimize: false }, performance: { hints: false }, infrastructureLogging: { level: 'error' },
};

const h = run({
  name: 'webpack', unit: 'bundles', fine: true,
  iterate() {
    return new Promise((resolve, reject) => {
      const compiler = webpack(config);
      compiler.outputFileSystem = memoryOutput(sink);
      compiler.run((err, stats) => {
        if (err || stats.hasErrors()) return reject(err || new Error(stats.toString({ all: false, errors: true })));
        h.step(stats.compilation.modules.size);
        compiler.close(() => resolve());
      });
    });
  },
});
