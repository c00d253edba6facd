// clickhouse_server.js — real ClickHouse servers for the end-to-end tests of --export and report:
// Debian's clickhouse-server started on private loopback ports with a private data directory (and,
// for a cluster, a remote_servers section naming the shards), killed and restarted on the same
// directory, queried over HTTP. A server that cannot start is an error that says why (the
// package missing, or the tail of its error log), never a silent pass.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const SERVER_BIN = process.env.CLICKHOUSE_SERVER || '/usr/sbin/clickhouse-server';
const AGENT_PASSWORD = 'agent-secret';

// A TCP port nothing listens on now (the kernel's choice).
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

function configXml(dir, ports, cluster, tls) {
  const remote = cluster ? `<remote_servers><${cluster.name}>${cluster.shards.map((tcp) =>
    `<shard><replica><host>127.0.0.1</host><port>${tcp}</port></replica></shard>`).join('')}</${cluster.name}></remote_servers>` : '';
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/error.log</errorlog><console>0</console></logger>
  <http_port>${ports.http}</http_port>${tls ? `
  <https_port>${ports.https}</https_port>
  <openSSL><server><certificateFile>${dir}/cert.pem</certificateFile><privateKeyFile>${dir}/key.pem</privateKeyFile>
    <verificationMode>none</verificationMode><loadDefaultCAFile>false</loadDefaultCAFile></server></openSSL>` : ''}
  <tcp_port>${ports.tcp}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709</mark_cache_size>
  ${remote}
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
    <agent><password>${AGENT_PASSWORD}</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></agent>
  </users>
  <quotas><default></default></quotas>
</yandex>
`;

async function query(http, sql) {
  const res = await fetch(`http://127.0.0.1:${http}/`, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse on port ${http}: ${sql.slice(0, 80)}…: ${text.split('\n')[0]}`);
  return text;
}

class Server {
  constructor(dir, ports, cluster) {
    this.dir = dir;
    this.ports = ports;
    this.cluster = cluster;
    this.url = (table = 'default') => `clickhouse://127.0.0.1:${ports.http}/${table}`;
  }

  running() { return this.child && this.child.exitCode === null && this.child.signalCode === null; }

  async start(timeoutMs = 30000) {
    if (this.running()) return;
    this.child = spawn(SERVER_BIN, [`--config-file=${this.dir}/config.xml`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => this.child.once('exit', (code, sig) => resolve(code ?? sig)));
    const end = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await query(this.ports.http, 'SELECT 1')).trim() === '1') return;
      } catch { /* not yet */ }
      const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 200))]);
      if (gone !== null || Date.now() > end) {
        const log = fs.existsSync(`${this.dir}/error.log`) ? fs.readFileSync(`${this.dir}/error.log`, 'utf8') : '';
        this.kill();
        throw new Error(`clickhouse-server did not start on 127.0.0.1:${this.ports.http} (${gone !== null ? `exited: ${gone}` : 'timed out'}): ${
          (stderr + log).trim().split('\n').slice(-5).join(' | ')}`);
      }
    }
  }

  // SIGKILL: the port closes at once (a SIGTERM'd ClickHouse waits for its connections)
  kill() {
    if (this.running()) {
      const gone = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGKILL');
      return gone;
    }
    return Promise.resolve();
  }

  query(sql) { return query(this.ports.http, sql); }
}

// A server in dir/NAME with fresh ports; cluster: {name, shards: [tcp ports]} (set later with
// setCluster, once every shard's ports are known); tls: also an https port, with a self-signed
// certificate for 127.0.0.1 made by openssl (dir/cert.pem, the CA a client must trust).
async function createServer(root, name, { tls = false } = {}) {
  if (!fs.existsSync(SERVER_BIN))
    throw new Error(`${SERVER_BIN} is not installed (scripts/setup-deps.sh installs clickhouse-server)`);
  const dir = path.join(root, name);
  for (const d of ['data', 'tmp']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  const ports = { http: await freePort(), tcp: await freePort(), https: tls ? await freePort() : 0 };
  fs.writeFileSync(path.join(dir, 'users.xml'), USERS_XML);
  if (tls) {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'),
      '-out', path.join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl could not make a certificate (scripts/setup-deps.sh installs openssl): ${r.error || r.stderr}`);
  }
  const s = new Server(dir, ports, null);
  s.ca = path.join(dir, 'cert.pem');
  s.setCluster = (cluster) => { s.cluster = cluster; fs.writeFileSync(path.join(dir, 'config.xml'), configXml(dir, ports, cluster, tls)); };
  s.setCluster(null);
  return s;
}

module.exports = { createServer, freePort, AGENT_PASSWORD, SERVER_BIN };
