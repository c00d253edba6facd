// clickhouse_soak.js — the fleet agent over hours (docs/fleet.md): a private ClickHouse
// server (Debian's clickhouse-server, tests/e2e/clickhouse_server.js), two node services that do real
// work at a steady pace (an Express server under a paced loopback client: service "shop"; a
// markdown-it renderer on a timer: service "docs", both named by V8WALK_SERVICE in their
// environment), and one agent: `v8walk --pid A --pid B --period P --export … --create-schema`.
// Halfway through, ClickHouse is killed for OUTAGE periods and started again: the agent must spool
// and drain. Every minute it records the agent's CPU (utime+stime from /proc/PID/stat over the
// minute) and RSS, and ClickHouse's rows and compressed bytes; at the end it prints that series, the
// first and second halves compared (flat or not), rows and bytes per host-hour, and checks that
// every period of both services arrived (one bucket per period, none lost in the outage).
//
//   node bench/clickhouse_soak.js [--seconds 7200] [--period 60] [--outage 3] [--busy]
//
// --busy: the "docs" service renders without pause (a busy service: one CPU) — for rows and bytes
// per host-hour at 99 Hz of a program that never idles; the default paces both services (~5–10 % of
// a CPU each) so that a two-hour run leaves the machine to other work.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { createServer } = require('../tests/e2e/clickhouse_server.js');
const { V8WALK, NODE, numberArg } = require('./clickhouse_bench_env.js');

const REAL = path.join(__dirname, 'real');

const SECONDS = numberArg('--seconds', 7200);
const PERIOD = numberArg('--period', 60);
const OUTAGE = numberArg('--outage', 3);
const BUSY = process.argv.includes('--busy');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const DOCS_SRC = `
const MarkdownIt = require('markdown-it');
const { markdown } = require(${JSON.stringify(path.join(REAL, 'lib', 'gen.js'))});
const md = new MarkdownIt({ linkify: true, typographer: true });
const docs = Array.from({ length: 8 }, (_, i) => markdown(30000, 50 + i));
let n = 0;
const busy = ${BUSY};
function render() { md.render(docs[n++ & 7]); busy ? setImmediate(render) : setTimeout(render, 100); }
render();
`;

function startService(name, args) {
  const child = spawn(NODE, args, {
    env: { ...process.env, NODE_PATH: path.join(REAL, 'node_modules'), V8WALK_SERVICE: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return child;
}

async function startShop() {
  const child = startService('shop', [path.join(REAL, 'workloads', 'express-server.js'), '0']);
  const line = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => { buf += d; if (buf.includes('\n')) resolve(buf.split('\n')[0]); });
    child.once('exit', (c) => reject(new Error(`the shop service exited (${c})`)));
  });
  return { child, port: JSON.parse(line).listening };
}

// A paced client: `rate` requests a second over a keep-alive agent, routes in turn.
function pacedClient(port, rate) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const routes = ['/page/3', '/api/items?n=120', '/search?q=frame', '/page/11'];
  let i = 0, errors = 0, done = 0;
  const timer = setInterval(() => {
    http.get({ host: '127.0.0.1', port, path: routes[i++ % routes.length], agent }, (res) => {
      res.resume();
      res.on('end', () => { done++; });
    }).on('error', () => { errors++; });
  }, 1000 / rate);
  return { stop() { clearInterval(timer); agent.destroy(); }, stats: () => ({ done, errors }) };
}

function procCpuTicks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14, 15)
}
function procRssKb(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}
const HZ = 100; // USER_HZ on Linux

async function tableFigures(server) {
  const q = (sql) => server.query(sql).then((t) => t.trim());
  const [rows, samples] = (await q('SELECT count(), sum(count) FROM soak.v8walk_samples')).split('\t').map(Number);
  const stacks = Number(await q('SELECT uniqExact(stack_hash) FROM soak.v8walk_stacks'));
  const bytes = (await q("SELECT table, sum(data_compressed_bytes) FROM system.parts WHERE active AND database = 'soak' GROUP BY table ORDER BY table"))
    .split('\n').filter(Boolean).map((l) => l.split('\t')).reduce((o, [t, b]) => ({ ...o, [t]: Number(b) }), {});
  return { rows, samples, stacks, bytes };
}

function quantile(v, q) { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; }

async function main() {
  if (!fs.existsSync(path.join(REAL, 'node_modules', 'express')))
    throw new Error('bench/real/node_modules is missing: run bench/real/setup.sh (make setup does)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-soak-'));
  const server = await createServer(tmp, 'ch');
  await server.start();
  await server.query('CREATE DATABASE IF NOT EXISTS soak');
  const shop = await startShop();
  const client = pacedClient(shop.port, BUSY ? 200 : 40);
  const docs = startService('docs', ['-e', DOCS_SRC]);
  await sleep(2000);
  const agentArgs = ['--pid', String(shop.child.pid), '--pid', String(docs.pid), '--period', String(PERIOD),
    '--duration', String(SECONDS), '--export', server.url('soak'), '--create-schema', '--label', 'service=auto',
    '--label', 'env=soak', '--spool', path.join(tmp, 'spool')];
  console.log(`soak: ${SECONDS} s, period ${PERIOD} s, outage of ${OUTAGE} periods at half time${BUSY ? ', busy docs service' : ''}; data in ${tmp}`);
  console.log(`soak: ${V8WALK} ${agentArgs.join(' ')}`);
  const agent = spawn(V8WALK, agentArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let agentErr = '';
  agent.stderr.on('data', (d) => { agentErr += d; });
  const agentExit = new Promise((resolve) => agent.once('exit', (code, sig) => resolve(code ?? sig)));

  const series = [];
  const t0 = Date.now();
  let lastTicks = 0, lastT = t0, outageDone = false;
  const serviceTicks0 = { shop: procCpuTicks(shop.child.pid), docs: procCpuTicks(docs.pid) };
  while (Date.now() - t0 < SECONDS * 1000 - 30000 && agent.exitCode === null) {
    await sleep(Math.min(60000, SECONDS * 1000 / 20));
    const now = Date.now();
    let ticks, rss;
    try { ticks = procCpuTicks(agent.pid); rss = procRssKb(agent.pid); } catch { break; }
    const cpu = (ticks - lastTicks) / HZ / ((now - lastT) / 1000) * 100;
    lastTicks = ticks; lastT = now;
    let fig = null;
    try { fig = await tableFigures(server); } catch { /* down: the outage */ }
    series.push({ min: (now - t0) / 60000, cpu, rssMb: rss / 1024, fig });
    console.log(`soak: ${((now - t0) / 60000).toFixed(1)} min: agent CPU ${cpu.toFixed(2)} %, RSS ${(rss / 1024).toFixed(1)} MB${
      fig ? `, ${fig.rows} rows (${fig.samples} samples, ${fig.stacks} stacks), ${JSON.stringify(fig.bytes)} B` : ', ClickHouse down'}`);
    if (!outageDone && now - t0 >= SECONDS * 500) {
      outageDone = true;
      console.log(`soak: ClickHouse killed for ${OUTAGE} periods`);
      await server.kill();
      await sleep(OUTAGE * PERIOD * 1000);
      await server.start();
      console.log('soak: ClickHouse started again');
    }
  }
  const code = await agentExit;
  client.stop();
  const serviceCpu = {
    shop: (procCpuTicks(shop.child.pid) - serviceTicks0.shop) / HZ / ((Date.now() - t0) / 1000) * 100,
    docs: (procCpuTicks(docs.pid) - serviceTicks0.docs) / HZ / ((Date.now() - t0) / 1000) * 100,
  };
  shop.child.kill(); docs.kill();
  const fig = await tableFigures(server);
  const perService = (await server.query(
    'SELECT service, uniqExact(bucket), sum(count), count() FROM soak.v8walk_samples GROUP BY service ORDER BY service')).trim();
  const spoolLeft = fs.existsSync(path.join(tmp, 'spool')) ? fs.readdirSync(path.join(tmp, 'spool')).filter((f) => !f.startsWith('.')).length : 0;
  await server.kill();

  const half = (a) => [a.slice(0, Math.floor(a.length / 2)), a.slice(Math.floor(a.length / 2))];
  const steady = series.slice(1); // the first minute holds attach and first-time naming
  const [c1, c2] = half(steady.map((s) => s.cpu));
  const [r1, r2] = half(steady.map((s) => s.rssMb));
  const mean = (v) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
  const hours = SECONDS / 3600;
  console.log('\nsoak: results');
  console.log(`  agent exit ${code}; its last lines:\n    ${agentErr.trim().split('\n').slice(-4).join('\n    ')}`);
  console.log(`  services' CPU: shop ${serviceCpu.shop.toFixed(1)} %, docs ${serviceCpu.docs.toFixed(1)} %; requests ${JSON.stringify(client.stats())}`);
  console.log(`  agent CPU: first half mean ${mean(c1).toFixed(2)} %, second half ${mean(c2).toFixed(2)} %, p90 ${quantile(steady.map((s) => s.cpu), 0.9).toFixed(2)} %`);
  console.log(`  agent RSS: first half ${Math.min(...r1).toFixed(1)}–${Math.max(...r1).toFixed(1)} MB, second half ${Math.min(...r2).toFixed(1)}–${Math.max(...r2).toFixed(1)} MB`);
  console.log(`  per service (service, periods, samples, rows):\n    ${perService.split('\n').join('\n    ')}`);
  console.log(`  in ClickHouse: ${fig.rows} rows, ${fig.samples} samples, ${fig.stacks} stacks, compressed ${JSON.stringify(fig.bytes)} B`);
  const totalBytes = Object.values(fig.bytes).reduce((a, b) => a + b, 0);
  console.log(`  per host-hour: ${(fig.rows / hours).toFixed(0)} rows, ${(totalBytes / hours / 1024).toFixed(0)} KiB compressed on disk`);
  console.log(`  spool files left: ${spoolLeft}`);
  const periods = Math.floor(SECONDS / PERIOD);
  const lost = perService.split('\n').map((l) => l.split('\t')).filter(([, b]) => Number(b) < periods - 1);
  if (code !== 0 || spoolLeft || lost.length) {
    console.log(`soak: FAILED (exit ${code}, ${spoolLeft} spooled, services with fewer than ${periods - 1} periods: ${JSON.stringify(lost)})`);
    process.exitCode = 1;
  } else {
    console.log(`soak: ok (every service has ≥ ${periods - 1} of ${periods} periods; spool empty)`);
  }
}

main().catch((e) => { console.error(`soak: ${e.message}`); process.exit(1); });
