// bundle-entry.js — the source of the bundle workload (workloads/bundle.js runs the result): setup.sh
// bundles this file with typescript, terser, acorn, markdown-it and prettier (standalone + plugins)
// into gen/bundle.js, one line of 10+ MB (esbuild, whitespace removed, names kept). The workload's
// own code and every library it calls then run from that single line. One unit = one transpile of
// a generated TypeScript module + one acorn parse + one Markdown render + one terser minify and one
// prettier format of a small generated module; work counted per stage.
'use strict';
const ts = require('typescript');
const acorn = require('acorn');
const terser = require('terser');
const MarkdownIt = require('markdown-it');
const prettier = require('prettier/standalone');
const prettierPlugins = [require('prettier/plugins/babel'), require('prettier/plugins/estree'),
  require('prettier/plugins/typescript'), require('prettier/plugins/markdown'), require('prettier/plugins/html'),
  require('prettier/plugins/postcss'), require('prettier/plugins/flow')];
const { run } = require('../lib/harness');
const gen = require('../lib/gen');

const tsSource = [...gen.typescriptProject(6).values()].join('\n').replace(/^import .*$/gm, '');
const jsSource = gen.javascript(300000, 11);
const mdSource = gen.markdown(60000, 12);
const smallJs = gen.javascript(15000, 13);
const md = new MarkdownIt();
let sink = 0;

const h = run({
  name: 'bundle', unit: 'rounds', fine: true,
  async iterate() {
    sink ^= ts.transpileModule(tsSource, { compilerOptions: { target: ts.ScriptTarget.ES2020 } }).outputText.length;
    h.step();
    sink ^= acorn.parse(jsSource, { ecmaVersion: 'latest' }).body.length;
    h.step();
    sink ^= md.render(mdSource).length;
    h.step();
    sink ^= (await terser.minify(smallJs, { compress: true, mangle: true })).code.length;
    h.step();
    sink ^= (await prettier.format(smallJs, { parser: 'babel', plugins: prettierPlugins })).length;
    h.step();
  },
});
