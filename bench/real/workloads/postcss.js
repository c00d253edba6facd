// postcss.js — a CSS processor: PostCSS with Autoprefixer (its browser data from caniuse-lite,
// the targets given here, not looked up in the file system) processes Bootstrap's stylesheet
// (dist/css/bootstrap.css, 280 KB, as the package ships it), and the result is parsed again and
// walked: the tokenizer, the parser, Autoprefixer's rules over every declaration and selector, the
// stringifier. One unit = one process of the sheet (work counted in rules).
'use strict';
const fs = require('node:fs');
const postcss = require('postcss');
const autoprefixer = require('autoprefixer');
const { run } = require('../lib/harness');

const css = fs.readFileSync(require.resolve('bootstrap/dist/css/bootstrap.css'), 'utf8');
const processor = postcss([autoprefixer({ overrideBrowserslist: ['last 4 versions', '> 0.5%', 'Firefox ESR', 'ie 11'], grid: 'autoplace' })]);
let bytes = 0;

const h = run({
  name: 'postcss', unit: 'stylesheets', fine: true,
  iterate() {
    const result = processor.process(css, { from: undefined, map: false });
    bytes += result.css.length;
    let rules = 0;
    postcss.parse(result.css).walkRules(() => { rules++; });
    h.step(rules);
  },
});
