// express-server.js — the server under load (the process the benchmarks sample): an Express 5 app on
// 127.0.0.1 only (port: argv[2] or PORT, default 0 = any free port), with routes that do real work
// per request — a Markdown render, a JSON API response built and serialised, a search with a
// regular expression over generated documents. Prints {"listening": PORT, "pid": …} once ready.
'use strict';
const express = require('express');
const MarkdownIt = require('markdown-it');
const { markdown } = require('../lib/gen');

const md = new MarkdownIt({ linkify: true });
const pages = Array.from({ length: 16 }, (_, i) => markdown(6000, 200 + i));
const app = express();

app.get('/page/:n', (req, res) => {
  res.type('html').send(md.render(pages[Number(req.params.n) & 15]));
});
app.get('/api/items', (req, res) => {
  const n = Math.min(Number(req.query.n) || 50, 500);
  const items = [];
  for (let i = 0; i < n; i++) items.push({ id: i, name: `item-${i}`, tags: [`t${i % 7}`, `t${i % 11}`], score: (i * 2654435761) % 1000 / 10 });
  res.json({ count: n, items: items.sort((a, b) => b.score - a.score) });
});
app.get('/search', (req, res) => {
  const re = new RegExp(String(req.query.q || 'stack').replace(/[^a-z]/gi, ''), 'gi');
  const hits = pages.map((p, i) => ({ page: i, hits: (p.match(re) || []).length }));
  res.json(hits.filter((h) => h.hits > 0));
});

const server = app.listen(Number(process.argv[2] ?? process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ listening: server.address().port, pid: process.pid }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
