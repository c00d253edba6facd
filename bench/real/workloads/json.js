// json.js — JSON: an API-style batch job on a generated 4 MB JSON document (orders with customers,
// nested line items, addresses): JSON.parse, Ajv's compiled validator over every record (its schema
// compiled once to JavaScript), a transform into per-customer summaries, JSON.stringify indented,
// and a parse with a reviver of the summaries. One unit = one pass over the document (work counted
// in records).
'use strict';
const Ajv = require('ajv');
const { run, rng } = require('../lib/harness');

const RECORDS = Number(process.env.JSON_RECORDS || 6000);
const r = rng(11);
const word = () => ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta'][Math.floor(r() * 8)];
const orders = Array.from({ length: RECORDS }, (_, i) => ({
  id: `o-${i}`, created: new Date(1.7e12 + i * 36e5).toISOString(), status: ['new', 'paid', 'shipped', 'returned'][i % 4],
  customer: { id: `c-${i % 700}`, name: `${word()} ${word()}`, email: `${word()}.${i % 700}@example.org`, vip: i % 13 === 0 },
  address: { street: `${Math.floor(r() * 999)} ${word()} street`, city: word(), zip: String(10000 + Math.floor(r() * 89999)), country: ['DE', 'FR', 'US', 'JP'][i % 4] },
  items: Array.from({ length: 1 + Math.floor(r() * 6) }, (_, k) => ({ sku: `${word()}-${k}`, qty: 1 + Math.floor(r() * 4), price: Math.round(r() * 10000) / 100, tags: [word(), word()] })),
  notes: r() < 0.3 ? `${word()} ${word()} ${word()}` : null,
}));
const text = JSON.stringify({ version: 3, orders });

const schema = {
  type: 'object', required: ['id', 'created', 'status', 'customer', 'items'],
  properties: {
    id: { type: 'string', pattern: '^o-[0-9]+$' }, created: { type: 'string', minLength: 20 },
    status: { enum: ['new', 'paid', 'shipped', 'returned'] },
    customer: { type: 'object', required: ['id', 'name', 'email'], properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string', pattern: '^[^@]+@[^@]+$' }, vip: { type: 'boolean' } } },
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' }, country: { type: 'string', maxLength: 2 } } },
    items: { type: 'array', minItems: 1, items: { type: 'object', required: ['sku', 'qty', 'price'], properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, price: { type: 'number', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } } } },
    notes: { type: ['string', 'null'] },
  },
};
const validate = new Ajv({ allErrors: true }).compile(schema);
let bytes = 0;

const h = run({
  name: 'json', unit: 'passes', fine: true,
  iterate() {
    const doc = JSON.parse(text);
    const byCustomer = new Map();
    for (const o of doc.orders) {
      if (!validate(o)) throw new Error(`invalid record ${o.id}: ${JSON.stringify(validate.errors)}`);
      const s = byCustomer.get(o.customer.id) || { customer: o.customer.id, orders: 0, total: 0, skus: {} };
      s.orders++;
      for (const it of o.items) { s.total += it.qty * it.price; s.skus[it.sku] = (s.skus[it.sku] || 0) + it.qty; }
      byCustomer.set(o.customer.id, s);
    }
    const out = JSON.stringify([...byCustomer.values()], null, 2);
    const back = JSON.parse(out, (k, v) => (k === 'total' ? Math.round(v) : v));
    bytes += out.length + back.length;
    h.step(doc.orders.length);
  },
});
