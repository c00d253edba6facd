// local_registry.js — an npm registry on loopback for the install tests, holding only what is
// published to it: `npm publish` (PUT of a package document with the tarball attached) stores a
// version, and npm reads back its package document (GET /NAME, scoped names %2f-encoded) and the
// tarball (GET /NAME/-/FILE). Any other package is a 404, so an install that points npm here can
// only get the packages published here, never a namesake from the public registry. Every request is
// logged (requests), so a test can show what npm asked for.
'use strict';
const http = require('node:http');
const crypto = require('node:crypto');

function createRegistry() {
  const packages = new Map(); // name → {name, 'dist-tags', versions, tarballs: Map(file → Buffer)}
  const requests = [];
  let base = '';

  function packument(p) {
    return { name: p.name, 'dist-tags': p['dist-tags'], versions: p.versions };
  }

  function publish(doc) {
    const name = doc.name;
    const p = packages.get(name) || { name, 'dist-tags': {}, versions: {}, tarballs: new Map() };
    for (const [file, att] of Object.entries(doc._attachments || {})) {
      const data = Buffer.from(att.data, 'base64');
      const version = Object.keys(doc.versions).find((v) => doc.versions[v].dist.tarball.endsWith(`/${file}`)) || Object.keys(doc.versions)[0];
      const m = doc.versions[version];
      if (p.versions[version]) return [409, { error: `${name}@${version} is already published` }];
      const integrity = `sha512-${crypto.createHash('sha512').update(data).digest('base64')}`;
      if (m.dist.integrity && m.dist.integrity !== integrity) return [400, { error: 'integrity mismatch' }];
      const local = `${name.replace('/', '%2f')}/-/${file.replace(/^.*\//, '')}`;
      p.tarballs.set(local, data);
      p.versions[version] = { ...m, dist: { ...m.dist, integrity, shasum: crypto.createHash('sha1').update(data).digest('hex'), tarball: `${base}/${local}` } };
    }
    Object.assign(p['dist-tags'], doc['dist-tags'] || {});
    packages.set(name, p);
    return [201, { ok: true }];
  }

  const server = http.createServer((req, res) => {
    let body = [];
    req.on('data', (d) => body.push(d));
    req.on('end', () => {
      body = Buffer.concat(body);
      const url = decodeURIComponent(req.url.split('?')[0]).replace(/^\/+/, '');
      requests.push(`${req.method} /${url}`);
      const send = (code, obj, type = 'application/json') => {
        res.writeHead(code, { 'content-type': type });
        res.end(Buffer.isBuffer(obj) ? obj : JSON.stringify(obj));
      };
      if (req.method === 'PUT' && !url.includes('/-/')) {
        try { return send(...publish(JSON.parse(body.toString('utf8')))); } catch (e) { return send(400, { error: String(e) }); }
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'method not allowed' });
      const tar = /^(.+)\/-\/([^/]+\.tgz)$/.exec(url);
      if (tar) {
        const p = packages.get(tar[1]);
        const data = p && p.tarballs.get(`${tar[1].replace('/', '%2f')}/-/${tar[2]}`);
        return data ? send(200, data, 'application/octet-stream') : send(404, { error: 'not found' });
      }
      const p = packages.get(url);
      return p ? send(200, packument(p)) : send(404, { error: 'not found' });
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      base = `http://127.0.0.1:${server.address().port}`;
      resolve({ url: `${base}/`, requests, packages, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

module.exports = { createRegistry };
