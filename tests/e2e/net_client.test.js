// net_client.test.js — v8walk's own HTTP client (net/) on the wire, against servers of the
// test's own: `v8walk report --from URL` must reach a stand-in ClickHouse that answers every
// query with an exception (so one line names it: proof the request arrived), over names and
// certificates the test controls. DNS: a Kubernetes-style resolv.conf (search domains, ndots:5)
// bind-mounted over /etc/resolv.conf in a mount namespace, and a DNS server of the test's own on
// 127.0.0.77:53 — the short service name must resolve through the search list, as in a pod; a
// name nowhere is one line. TLS: a certificate for the DNS name localhost and the address ::1
// (made by openssl): https://localhost/ is verified by name (and sends it as SNI),
// https://[::1]/ by its IP address entry, https://127.0.0.1/ is refused (not in the
// certificate). Runs once per matrix run (ptrace pass, first node), as the ClickHouse tests do.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('node:child_process');
const dgram = require('node:dgram');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-net-'));
const closers = [];
test.after(() => {
  for (const c of closers) c();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function netTest(name, fn) {
  if (h.MODE === 'ptrace') h.firstNodeTest(name, { timeout: 60000 }, fn);
}

const EXCEPTION = 'Code: 60, e.displayText() = DB::Exception: the stand-in server saw this request';

// A stand-in ClickHouse: every POST answered 500 with ClickHouse's exception text; `seen` holds
// each request's host header, authorization, SNI and path.
function standIn(server) {
  const seen = [];
  server.on('request', (req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ host: req.headers.host, auth: req.headers.authorization, sni: req.socket.servername,
        agent: req.headers['user-agent'], method: req.method });
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`${EXCEPTION}\n`);
    });
  });
  closers.push(() => server.close());
  return seen;
}

function listen(server, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(server.address().port));
  });
}

// v8walk report --from URL, optionally inside `unshare -m` with a resolv.conf bind-mounted
function report(url, { env = {}, resolvConf } = {}) {
  const args = ['report', '--from', url, '--raw'];
  const [cmd, argv] = resolvConf
    ? ['unshare', ['-m', 'sh', '-c', 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf, h.V8WALK, ...args]]
    : [h.V8WALK, args];
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => child.kill('SIGKILL'), 30000);
    child.on('close', (code) => { clearTimeout(t); resolve({ code, stdout, stderr }); });
  });
}

// ---- a DNS server: A records for `names` (lower case, no trailing dot), NXDOMAIN for the rest,
// NOERROR without records for AAAA of a known name; `asked` lists "TYPE name" in order
function dnsServer(names, address) {
  const asked = [];
  const sock = dgram.createSocket('udp4');
  sock.on('message', (q, rinfo) => {
    if (q.length < 17) return;
    let at = 12;
    const labels = [];
    while (at < q.length && q[at] !== 0) {
      labels.push(q.subarray(at + 1, at + 1 + q[at]).toString('latin1'));
      at += 1 + q[at];
    }
    const qtype = q.readUInt16BE(at + 1);
    const question = q.subarray(12, at + 5);
    const name = labels.join('.').toLowerCase();
    asked.push(`${qtype === 1 ? 'A' : qtype === 28 ? 'AAAA' : qtype} ${name}`);
    const known = name in names;
    const answers = known && qtype === 1 ? 1 : 0;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.readUInt16BE(0), 0);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // response, RD, RA; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers, 6);
    const parts = [header, question];
    if (answers) {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(1, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(4, 10);
      names[name].split('.').forEach((b, i) => { rr[12 + i] = Number(b); });
      parts.push(rr);
    }
    sock.send(Buffer.concat(parts), rinfo.port, rinfo.address);
  });
  closers.push(() => sock.close());
  return new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(53, address, () => resolve(asked));
  });
}

netTest('a Kubernetes service name resolves through resolv.conf\'s search domains and ndots, without NSS', async (t) => {
  if (process.getuid() !== 0) { t.skip('needs root: a mount namespace for resolv.conf, and port 53'); return; }
  if (spawnSync('unshare', ['-m', 'true']).status !== 0) { t.skip('unshare -m is not allowed here'); return; }
  let asked;
  try {
    asked = await dnsServer({ 'clickhouse.monitoring.svc.cluster.local': '127.0.0.1' }, '127.0.0.77');
  } catch (e) {
    t.skip(`no DNS server of the test's own on 127.0.0.77:53 (${e.code})`);
    return;
  }
  const server = http.createServer();
  const seen = standIn(server);
  const port = await listen(server, '127.0.0.1');
  const conf = path.join(tmp, 'resolv.conf');
  fs.writeFileSync(conf, 'nameserver 127.0.0.77\nsearch monitoring.svc.cluster.local svc.cluster.local cluster.local\n' +
    'options ndots:5 timeout:1 attempts:1\n');

  const r = await report(`clickhouse://clickhouse:${port}/default`, { resolvConf: conf });
  assert.strictEqual(r.code, 1, r.stderr);
  assert.strictEqual(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.ok(r.stderr.includes(`ClickHouse at http://clickhouse:${port}/ answered HTTP 500: ${EXCEPTION}`), r.stderr);
  assert.strictEqual(seen[0].host, `clickhouse:${port}`);
  assert.match(seen[0].agent, /^v8walk\/\d+\.\d+\.\d+$/);
  assert.deepStrictEqual(asked, ['A clickhouse.monitoring.svc.cluster.local'], 'the first search domain answered');

  // the full name with a trailing dot is asked as it is
  asked.length = 0;
  const abs = await report(`clickhouse://clickhouse.monitoring.svc.cluster.local.:${port}/default`, { resolvConf: conf });
  assert.strictEqual(abs.code, 1);
  assert.ok(abs.stderr.includes('answered HTTP 500'), abs.stderr);
  assert.deepStrictEqual(asked, ['A clickhouse.monitoring.svc.cluster.local']);

  // a name nowhere: every search domain and the name itself asked, for A then AAAA; one line
  asked.length = 0;
  const none = await report(`clickhouse://nosuch:${port}/default`, { resolvConf: conf });
  assert.strictEqual(none.code, 1);
  assert.match(none.stderr, new RegExp(`^v8walk report: cannot reach ClickHouse at http://nosuch:${port}/ \\(cannot resolve nosuch \\(no such host in /etc/hosts or DNS\\)\\)\\n$`));
  for (const type of ['A', 'AAAA'])
    for (const suffix of ['.monitoring.svc.cluster.local', '.svc.cluster.local', '.cluster.local', ''])
      assert.ok(asked.includes(`${type} nosuch${suffix}`), `${type} nosuch${suffix} asked: ${asked}`);
});

netTest('TLS: a certificate is checked against the name asked for (DNS name and SNI, or IP address entry)', async (t) => {
  const key = path.join(tmp, 'key.pem'), cert = path.join(tmp, 'cert.pem');
  const mk = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=DNS:localhost,IP:::1'], { encoding: 'utf8' });
  assert.strictEqual(mk.status, 0, `openssl could not make a certificate (scripts/setup-deps.sh installs openssl): ${mk.stderr}`);
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) });
  const seen = standIn(server);
  // on every loopback address: 127.0.0.1 and, where there is one, ::1
  const port = await listen(server, '::');
  const env = { V8WALK_CLICKHOUSE_CA: cert, V8WALK_CLICKHOUSE_USER: 'agent', V8WALK_CLICKHOUSE_PASSWORD: 's3cret' };

  const byName = await report(`https://localhost:${port}/default`, { env });
  assert.strictEqual(byName.code, 1, byName.stderr);
  assert.ok(byName.stderr.includes(`ClickHouse at https://localhost:${port}/ answered HTTP 500: ${EXCEPTION}`), byName.stderr);
  assert.strictEqual(seen.at(-1).sni, 'localhost', 'the name went as SNI');
  assert.strictEqual(seen.at(-1).auth, `Basic ${Buffer.from('agent:s3cret').toString('base64')}`);

  // 127.0.0.1 is the CN, but an address must be one of the certificate's IP entries
  const byV4 = await report(`https://127.0.0.1:${port}/default`, { env });
  assert.strictEqual(byV4.code, 1);
  assert.match(byV4.stderr, new RegExp(`^v8walk report: cannot reach ClickHouse at https://127\\.0\\.0\\.1:${port}/ \\(TLS: the server's certificate is not valid for 127\\.0\\.0\\.1\\)\\n$`));

  // without the CA: not trusted, one line naming V8WALK_CLICKHOUSE_CA
  const untrusted = await report(`https://localhost:${port}/default`, { env: { ...env, V8WALK_CLICKHOUSE_CA: '' } });
  assert.strictEqual(untrusted.code, 1);
  assert.match(untrusted.stderr, /\(TLS: the server's certificate is not signed by a CA in .*V8WALK_CLICKHOUSE_CA names the CA file/);

  const v6 = spawnSync(process.execPath, ['-e', `require('net').connect(${port}, '::1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`]);
  if (v6.status !== 0) { t.diagnostic('no IPv6 loopback here: the [::1] case is not run'); return; }
  const byV6 = await report(`https://[::1]:${port}/default`, { env });
  assert.strictEqual(byV6.code, 1, byV6.stderr);
  assert.ok(byV6.stderr.includes(`ClickHouse at https://[::1]:${port}/ answered HTTP 500: ${EXCEPTION}`), byV6.stderr);
  assert.strictEqual(seen.at(-1).host, `[::1]:${port}`);
  assert.strictEqual(seen.at(-1).sni, false, 'no SNI for an address');
});
