// validate.mjs — Kubernetes manifests against the Kubernetes API schema, offline: each document's
// model from kubernetes-models (JSON schemas compiled from Kubernetes' OpenAPI: types, enums,
// required fields), and, as `kubectl apply --validate=strict` and kubeconform -strict do, no field
// the API does not know (from the same package's typed interfaces, field by field, nested).
//   node validate.mjs FILE...   prints each error, exits 1 when there is one
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const require = createRequire(import.meta.url);
const MODELS = path.dirname(require.resolve('kubernetes-models/package.json'));

// apiVersion → the package subpath of its group/version ("v1", "apps/v1", "rbac.authorization.k8s.io/v1")
async function modelOf(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return null;
  let mod;
  try { mod = await import(`kubernetes-models/${apiVersion}`); } catch { return null; }
  const Model = mod[kind];
  return Model && Model.kind === kind ? Model : null;
}

// The interface a .d.ts file declares first: its fields {name: type text} and the files its
// field types come from.
const interfaces = new Map();
function readInterface(file) {
  if (interfaces.has(file)) return interfaces.get(file);
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '');
  const imports = {};
  for (const m of text.matchAll(/import \{ (\w+) \} from "([^"]+)";/g)) imports[m[1]] = m[2];
  const start = /export interface \w+(?: extends [\w, ]+)? \{\n/.exec(text);
  let iface = null;
  if (start) {
    const fields = {};
    let depth = 1;
    for (const line of text.slice(start.index + start[0].length).split('\n')) {
      const m = depth === 1 && /^\s*"([^"]+)"\??: (.*?);?$/.exec(line);
      if (m) fields[m[1]] = m[2];
      depth += (line.match(/\{/g) || []).length - (line.match(/\}/g) || []).length;
      if (depth <= 0) break;
    }
    iface = { fields, imports, dir: path.dirname(file) };
  }
  interfaces.set(file, iface);
  return iface;
}

function typeFile(iface, name) {
  const from = iface.imports[name];
  if (!from) return null;
  if (from.startsWith('.')) return path.join(iface.dir, from.replace(/\.js$/, '.d.ts'));
  return path.join(path.dirname(MODELS), `${from}.d.ts`); // a package's own path, in node_modules
}

// Fields of value that the interface of `file` does not have, as paths; nested typed fields too.
function unknownFields(value, file, at, out) {
  const iface = file && readInterface(file);
  if (!iface || value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [k, v] of Object.entries(value)) {
    const type = iface.fields[k];
    if (type === undefined) {
      out.push(`${at}.${k}: no such field in the Kubernetes API`);
      continue;
    }
    const arr = /^Array<(\w+)>$/.exec(type);
    const one = /^(\w+)$/.exec(type);
    const ref = (arr || one) && typeFile(iface, (arr || one)[1]);
    if (arr && Array.isArray(v)) v.forEach((x, i) => unknownFields(x, ref, `${at}.${k}[${i}]`, out));
    else if (one) unknownFields(v, ref, `${at}.${k}`, out);
  }
}

export async function validateText(text, name = 'manifest') {
  const errors = [];
  const docs = YAML.parseAllDocuments(text);
  for (const [i, doc] of docs.entries()) {
    const where = `${name} document ${i + 1}`;
    if (doc.errors.length) { errors.push(`${where}: YAML: ${doc.errors[0].message}`); continue; }
    const obj = doc.toJS();
    if (obj === null) continue;
    const Model = await modelOf(obj.apiVersion, obj.kind);
    if (!Model) { errors.push(`${where}: no kind ${obj.kind} in ${obj.apiVersion} in the Kubernetes API`); continue; }
    try {
      new Model(obj).validate();
    } catch (e) {
      errors.push(`${where} (${obj.kind} ${obj.metadata?.name}): ${e.message}`);
    }
    const file = path.join(MODELS, ...obj.apiVersion.split('/'), `${obj.kind}.d.ts`);
    unknownFields(obj, file, `${where} (${obj.kind})`, errors);
  }
  return { errors, documents: docs.map((d) => d.toJS()).filter(Boolean) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    const { errors, documents } = await validateText(fs.readFileSync(f, 'utf8'), f);
    for (const e of errors) console.error(e);
    bad += errors.length;
    if (!errors.length) console.log(`${f}: ${documents.length} documents valid (${documents.map((d) => d.kind).join(', ')})`);
  }
  process.exit(bad ? 1 : 0);
}
