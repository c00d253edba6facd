// gen.js — deterministic inputs the real workloads generate for themselves (same bytes every run):
//   javascript(bytes)  plain JS with nested functions, classes and deeply nested expressions (an
//                      acorn parse of it recurses 100+ frames deep)
//   typescriptProject(files)  a TypeScript project of FILES modules that import each other, with
//                      interfaces, generics, classes and thousands of functions
//   markdown(bytes)    a Markdown document with headings, lists, tables, code, links and emphasis
'use strict';
const { rng } = require('./harness');

function pick(r, list) { return list[Math.floor(r() * list.length)]; }

// An expression nested DEPTH levels deep: every level is a call, array, object, parenthesis,
// conditional or arrow, each of which costs acorn several frames of recursive descent.
function nestedExpression(r, depth, names) {
  if (depth === 0) return pick(r, [String(Math.floor(r() * 1000)), pick(r, names), `'s${Math.floor(r() * 99)}'`, 'null']);
  const inner = () => nestedExpression(r, depth - 1, names);
  switch (Math.floor(r() * 7)) {
    case 0: return `${pick(r, names)}(${inner()}, ${Math.floor(r() * 9)})`;
    case 1: return `[${inner()}, ${pick(r, names)}]`;
    case 2: return `({ k${depth}: ${inner()}, v: ${pick(r, names)} })`;
    case 3: return `(${inner()} + ${pick(r, names)} * 2)`;
    case 4: return `${pick(r, names)} ? ${inner()} : ${pick(r, names)}`;
    case 5: return `((x${depth}) => ${inner()})`;
    default: return `!${pick(r, names)} && ${inner()}`;
  }
}

function functionSource(r, id, depth) {
  const names = ['a', 'b', 'c', `f${id}`, 'Math.max', 'String'];
  let body = '';
  const statements = 3 + Math.floor(r() * 4);
  for (let s = 0; s < statements; s++) {
    switch (Math.floor(r() * 5)) {
      case 0: body += `  const v${s} = ${nestedExpression(r, 6 + Math.floor(r() * 18), names)};\n`; break;
      case 1: body += `  for (let i = 0; i < a.length; i++) { if (a[i] > ${s}) { b += a[i] * ${s}; } else { c = c || [i]; } }\n`; break;
      case 2: body += `  if (typeof b === 'number' && b > ${s}) { return { id: ${id}, s: ${s}, value: b }; }\n`; break;
      case 3: body += `  try { c = JSON.parse(String(b)); } catch (e) { c = e.message; } finally { a = a || []; }\n`; break;
      default: body += `  switch (b) { case ${s}: c = 'x${s}'; break; case ${s + 1}: c = \`t\${b}x\`; break; default: c = null; }\n`;
    }
  }
  if (depth > 0 && r() < 0.6) body += functionSource(r, id * 10 + 1, depth - 1).replace(/^/gm, '  ');
  return `function f${id}(a, b, c) {\n${body}  return [a, b, c];\n}\n`;
}

function javascript(bytes, seed = 1) {
  const r = rng(seed);
  const parts = ['\'use strict\';\n'];
  let size = parts[0].length;
  for (let id = 1; size < bytes; id++) {
    let chunk;
    if (id % 7 === 0) {
      chunk = `class C${id} extends Object {\n  constructor(x) { super(); this.x = x; }\n  get y() { return this.x * ${id}; }\n` +
        `  m${id}(a, b) { return ${nestedExpression(r, 10, ['a', 'b', 'this.x'])}; }\n  static s() { return new C${id}(${id}); }\n}\n`;
    } else {
      chunk = functionSource(r, id, 6);
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return parts.join('');
}

function typescriptProject(files, seed = 2) {
  const r = rng(seed);
  const project = new Map();
  for (let f = 0; f < files; f++) {
    let src = '';
    const deps = [];
    for (let d = 0; d < 3 && f > 0; d++) deps.push(Math.floor(r() * f));
    for (const d of new Set(deps)) src += `import { Entity${d}, make${d}, Kind${d} } from './m${d}';\n`;
    src += `export enum Kind${f} { A = ${f}, B, C, D }\n`;
    src += `export interface Entity${f}<T = string> {\n  id: number;\n  kind: Kind${f};\n  label: T;\n  tags: ReadonlyArray<string>;\n` +
      `  child?: Entity${f}<T>;\n${[...new Set(deps)].map((d) => `  link${d}?: Entity${d}<T>;\n`).join('')}}\n`;
    src += `export type Mapped${f}<T> = { readonly [K in keyof T as \`get\${Capitalize<string & K>}\`]: () => T[K] };\n`;
    src += `export function make${f}<T extends string>(id: number, label: T): Entity${f}<T> {\n  return { id, kind: Kind${f}.A, label, tags: [label, String(id)] };\n}\n`;
    src += `export class Store${f}<T extends { id: number }> {\n  private items = new Map<number, T>();\n` +
      `  add(item: T): this { this.items.set(item.id, item); return this; }\n` +
      `  find(pred: (t: T) => boolean): T | undefined { for (const v of this.items.values()) if (pred(v)) return v; return undefined; }\n` +
      `  map<U>(fn: (t: T, i: number) => U): U[] { return [...this.items.values()].map(fn); }\n}\n`;
    const fns = 12 + Math.floor(r() * 10);
    for (let i = 0; i < fns; i++) {
      const d = deps.length ? pick(r, deps) : f;
      const own = d === f;
      src += `export function fn${f}_${i}(e: Entity${d}<string>, n: number): ${i % 3 === 0 ? `Mapped${f}<Entity${d}>` : 'string | number'} {\n` +
        `  const s = new Store${f}<Entity${d}>().add(e).add(${own ? `make${f}` : `make${d}`}(n, 'x${i}'));\n` +
        `  const found = s.find((t) => t.kind === ${own ? `Kind${f}` : `Kind${d}`}.B && t.tags.includes('${i}'));\n` +
        `  const labels = s.map((t, k) => \`\${t.label}:\${k}:\${t.id}\`).filter((x) => x.length > ${i}).join(',');\n` +
        (i % 3 === 0
          ? `  return { getId: () => e.id, getKind: () => e.kind, getLabel: () => labels, getTags: () => e.tags, getChild: () => found } as unknown as Mapped${f}<Entity${d}>;\n`
          : `  return found ? found.id + n : labels.length > 3 ? labels : n * ${i};\n`) +
        `}\n`;
    }
    project.set(`/project/m${f}.ts`, src);
  }
  return project;
}

function markdown(bytes, seed = 3) {
  const r = rng(seed);
  const words = ['sample', 'stack', 'frame', 'walk', 'heap', 'node', 'pause', '`code`', 'tier', 'inline', 'script', 'line'];
  const sentence = () => {
    let s = '';
    const n = 6 + Math.floor(r() * 14);
    for (let i = 0; i < n; i++) {
      const w = pick(r, words);
      const k = r();
      s += (i ? ' ' : '') + (k < 0.08 ? `**${w}**` : k < 0.14 ? `_${w}_` : k < 0.18 ? `[${w}](https://example.com/${w}/${i})` : w);
    }
    return s + '.';
  };
  let out = '';
  for (let sec = 1; out.length < bytes; sec++) {
    out += `${'#'.repeat(1 + (sec % 3))} Section ${sec}\n\n${sentence()} ${sentence()}\n\n`;
    for (let i = 0; i < 4; i++) out += `${i % 2 ? '-' : `${i + 1}.`} ${sentence()}\n${i === 2 ? `   - nested ${sentence()}\n` : ''}`;
    out += `\n> ${sentence()}\n> ${sentence()}\n\n| a | b | c |\n|---|:-:|--:|\n`;
    for (let i = 0; i < 4; i++) out += `| ${pick(r, words)} | ${i * sec} | ${sentence()} |\n`;
    out += `\n\`\`\`js\nfunction f${sec}(x) { return x * ${sec}; }\n\`\`\`\n\n${sentence()} ${sentence()} ${sentence()}\n\n`;
  }
  return out;
}

module.exports = { javascript, typescriptProject, markdown };
