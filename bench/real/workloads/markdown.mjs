// markdown.mjs — an ES-module program: markdown-it (imported as ESM, dist/markdown-it.mjs) renders
// a generated 200 KB Markdown document (headings, nested lists, tables, code, links, emphasis) to
// HTML. One unit = one render of the whole document (work counted in block tokens).
import { createRequire } from 'node:module';
import MarkdownIt from 'markdown-it';

const require = createRequire(import.meta.url);
const { run } = require('../lib/harness.js');
const { markdown } = require('../lib/gen.js');

const doc = markdown(Number(process.env.MARKDOWN_BYTES || 200000));
const md = new MarkdownIt({ linkify: true, typographer: true });
let htmlBytes = 0;

const h = run({
  name: 'markdown', unit: 'renders', fine: true,
  iterate() {
    const tokens = md.parse(doc, {});
    h.step(tokens.length);
    htmlBytes += md.renderer.render(tokens, md.options, {}).length;
  },
});
