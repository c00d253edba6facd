// handlebars.js — a template engine: Handlebars compiles a set of page templates (layout, partials,
// block helpers, nested each/if/with, custom helpers) and renders them over generated data. Every
// unit compiles the templates afresh in a new Handlebars environment (its parser, the compiler that
// writes JavaScript, new Function) and renders each page for 40 data sets: the generated template
// functions and the runtime's helpers, lookups and escaping. One unit = one compile + 240 renders
// (work counted in pages rendered).
'use strict';
const Handlebars = require('handlebars');
const { run, rng } = require('../lib/harness');

const partials = {
  header: '<header class="{{theme}}"><h1>{{title}}</h1>{{#if subtitle}}<h2>{{subtitle}}</h2>{{/if}}<nav>{{#each nav}}<a href="{{url}}"{{#if active}} class="active"{{/if}}>{{label}}</a>{{/each}}</nav></header>',
  card: '<article class="card {{#if featured}}featured{{/if}}"><h3>{{upper name}}</h3><p>{{{summary}}}</p>{{#with author}}<span>{{first}} {{last}} &lt;{{email}}&gt;</span>{{/with}}' +
    '<ul>{{#each tags}}<li data-i="{{@index}}">{{this}}</li>{{else}}<li>none</li>{{/each}}</ul>{{> price}}</article>',
  price: '<div class="price">{{money price currency}}{{#if discount}} <s>{{money list currency}}</s> -{{discount}}%{{/if}}</div>',
  footer: '<footer>{{#each links}}{{#unless @first}} · {{/unless}}<a href="{{href}}">{{text}}</a>{{/each}} {{year}}</footer>',
};
const pages = [
  '{{> header}}<main>{{#each items}}{{> card}}{{/each}}</main>{{> footer}}',
  '{{> header}}<table>{{#each rows}}<tr class="{{#if (even @index)}}even{{else}}odd{{/if}}">{{#each cells}}<td>{{fmt this}}</td>{{/each}}</tr>{{/each}}</table>{{> footer}}',
  '{{> header}}{{#each sections}}<section id="{{slug title}}"><h2>{{title}}</h2>{{#each paragraphs}}<p>{{this}}</p>{{/each}}{{#if items}}{{#each items}}{{> card}}{{/each}}{{/if}}</section>{{/each}}{{> footer}}',
  '{{> header}}<dl>{{#each items}}<dt>{{name}}</dt><dd>{{#each tags}}{{#if @last}}{{this}}{{else}}{{this}}, {{/if}}{{/each}}</dd>{{/each}}</dl>{{> footer}}',
  '{{> header}}{{#each groups}}<h3>{{name}} ({{items.length}})</h3>{{#each items}}{{> card}}{{/each}}{{/each}}{{> footer}}',
  '{{> header}}<pre>{{#each rows}}{{#each cells}}{{fmt this}}\t{{/each}}\n{{/each}}</pre>{{> footer}}',
];
const helpers = {
  upper: (s) => String(s).toUpperCase(),
  money: (n, cur) => `${cur} ${Number(n).toFixed(2)}`,
  even: (i) => i % 2 === 0,
  fmt: (v) => (typeof v === 'number' ? `${Math.trunc(v)}.${Math.round((v % 1) * 10)}` : v),
  slug: (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-'),
};

function data(seed) {
  const r = rng(seed);
  const word = () => ['stack', 'frame', 'heap', 'code', 'tier', 'map', 'slot', 'scope', 'realm', 'ic'][Math.floor(r() * 10)];
  const item = (i) => ({
    name: `${word()} ${word()} ${i}`, summary: `<em>${word()}</em> ${word()} & ${word()}`, featured: r() < 0.2,
    author: { first: word(), last: word(), email: `${word()}@example.org` }, tags: Array.from({ length: Math.floor(r() * 5) }, word),
    price: r() * 100, list: 120, currency: 'EUR', discount: r() < 0.3 ? Math.floor(r() * 40) : 0,
  });
  const items = Array.from({ length: 30 }, (_, i) => item(i));
  return {
    theme: 'light', title: `Page ${seed}`, subtitle: seed % 2 ? 'sub' : '', year: 2026,
    nav: Array.from({ length: 6 }, (_, i) => ({ url: `/n${i}`, label: word(), active: i === seed % 6 })),
    links: Array.from({ length: 5 }, (_, i) => ({ href: `/l${i}`, text: word() })),
    items, rows: Array.from({ length: 25 }, () => ({ cells: Array.from({ length: 8 }, () => (r() < 0.5 ? r() * 1e6 : word())) })),
    sections: Array.from({ length: 6 }, (_, i) => ({ title: `${word()} ${i}`, paragraphs: [word(), word(), word()], items: i % 2 ? items.slice(0, 4) : null })),
    groups: Array.from({ length: 5 }, (_, i) => ({ name: word(), items: items.slice(i * 6, i * 6 + 6) })),
  };
}

const sets = Array.from({ length: 40 }, (_, i) => data(100 + i));
let bytes = 0;

const h = run({
  name: 'handlebars', unit: 'compiles', fine: true,
  iterate() {
    const hb = Handlebars.create();
    hb.registerHelper(helpers);
    for (const [name, text] of Object.entries(partials)) hb.registerPartial(name, hb.compile(text));
    const templates = pages.map((p) => hb.compile(p));
    for (const t of templates) {
      for (const d of sets) bytes += t(d).length;
      h.step(sets.length);
    }
  },
});
