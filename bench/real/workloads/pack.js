// pack.js — zlib and crypto: what `npm pack` and `npm install` do to a package, with npm's own
// libraries. node-tar packs the files of four installed packages (acorn, markdown-it, handlebars,
// lunr: read from disk with its synchronous file system calls) into a gzipped tarball in memory
// (node's zlib), ssri computes its sha512 and sha1 integrity (node's crypto), and the tarball is
// listed back through node-tar's parser (gunzip) with a sha256 of every entry. One unit = one pack,
// integrity and listing (work counted in entries).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const tar = require('tar');
const ssri = require('ssri');
const { run } = require('../lib/harness');

const cwd = path.join(__dirname, '..', 'node_modules');
function filesOf(dir) {
  const out = [];
  for (const e of fs.readdirSync(path.join(cwd, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesOf(rel));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}
const files = ['acorn', 'markdown-it', 'handlebars', 'lunr'].flatMap(filesOf);
let bytes = 0;

const h = run({
  name: 'pack', unit: 'tarballs', fine: true,
  iterate() {
    const chunks = [];
    const p = tar.c({ cwd, gzip: { level: 9 }, portable: true, sync: true }, files);
    p.on('data', (c) => chunks.push(c));
    const tgz = Buffer.concat(chunks);
    const integrity = ssri.fromData(tgz, { algorithms: ['sha512', 'sha1'] });
    if (!ssri.checkData(tgz, integrity)) throw new Error('the tarball does not match its integrity');
    let entries = 0;
    const parser = new tar.Parser({
      onReadEntry(entry) {
        const hash = crypto.createHash('sha256');
        entry.on('data', (c) => hash.update(c));
        entry.on('end', () => { bytes += hash.digest().length; entries++; });
      },
    });
    parser.end(tgz);
    if (entries !== files.length) throw new Error(`listed ${entries} entries of ${files.length}`);
    bytes += tgz.length;
    h.step(entries);
  },
});
