// positions-report.js — summarize the per-frame records of tests/e2e/positions.test.js
// (V8WALK_POSITIONS_REPORT): per Node version, frames compared, exact matches, and mismatches
// grouped by what differs and in which kind of frame.
'use strict';
const fs = require('node:fs');

const byNode = new Map();
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean)) {
  const r = JSON.parse(line);
  if (!byNode.has(r.node)) byNode.set(r.node, { compared: 0, exact: 0, classes: new Map() });
  const s = byNode.get(r.node);
  for (const row of r.rows) {
    s.compared++;
    if (!row.diff.length) { s.exact++; continue; }
    const what = row.diff.join('+');
    const where = row.kind ? `${row.kind}${row.tier ? '/' + row.tier : ''}` : 'no frame';
    const key = `${what} in ${where}${row.known ? ` (known limitation: ${row.known})` : ''}`;
    const c = s.classes.get(key) || { n: 0, examples: new Set() };
    c.n++;
    if (c.examples.size < 3) c.examples.add(`${r.config}/${r.scenario}: ours "${row.ours && row.ours.name}" truth "${row.truth && row.truth.name}"`);
    s.classes.set(key, c);
  }
}
for (const [node, s] of [...byNode].sort()) {
  console.log(`${node}: ${s.exact}/${s.compared} frames exact (${(100 * s.exact / s.compared).toFixed(1)}%)`);
  for (const [key, c] of [...s.classes].sort((a, b) => b[1].n - a[1].n))
    console.log(`  ${c.n} × ${key}   e.g. ${[...c.examples].join('; ')}`);
}
