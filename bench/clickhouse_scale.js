// clickhouse_scale.js — insert and report latencies of the fleet store at scale
// (docs/fleet.md): a private ClickHouse server (Debian's clickhouse-server, tests/e2e/clickhouse_server.js)
// holding v8walk's tables (`v8walk schema`), filled inside ClickHouse (INSERT … SELECT FROM
// numbers()) with what HOSTS agents sampling one busy node process each at 99 Hz would have sent
// in 60 s buckets: STACKS distinct stacks per host (the first 80 % shared by every host, as one
// service's hosts share their code; the rest each host's own) with Zipf-like counts summing to
// 99 × 60 samples per host-minute, and a stacks row per distinct stack (12–23 frames of
// `name (/srv/app/…js:LINE)_[j]`). Then, with 1 h of data and again with 24 h:
//   - a real agent (`v8walk --pid P --period 1 --export …` on a spinning node process) inserts a few
//     periods into the big tables: its summary's insert latency (mean and max, ms);
//   - `v8walk report --where service=checkout --since 1h|24h -o FILE` (svg, pprof, folded; and a
//     cpuprofile over 1 h): wall time, ClickHouse's share (the two queries as report saw them) and
//     v8walk's peak RSS (/usr/bin/time), and the samples report counted against SELECT sum(count);
//     over 64 Mi samples a cpuprofile (which lists every sample) must be refused with its reason.
// Prints a table.
//
//   node bench/clickhouse_scale.js [--hosts 10] [--stacks 500] [--hours 24]
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createServer } = require('../tests/e2e/clickhouse_server.js');
const { V8WALK, NODE, numberArg } = require('./clickhouse_bench_env.js');

const HOSTS = numberArg('--hosts', 10);
const STACKS = numberArg('--stacks', 500);
const HOURS = numberArg('--hours', 24);
const RATE = 99, BUCKET = 60;
const SHARED = Math.floor(STACKS * 0.8);
const DB = 'scale', URL_TABLE = `${DB}.v8walk`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The stack of host h's i-th stack: shared ones are numbered 0..SHARED-1, a host's own after.
const stackId = (h, i) => `if(${i} < ${SHARED}, ${i}, ${SHARED} + ${h} * ${STACKS - SHARED} + (${i} - ${SHARED}))`;

async function fillStacks(server) {
  const distinct = SHARED + HOSTS * (STACKS - SHARED);
  // frames outermost first; depth 12–23; prefixes shared the way call trees share them
  await server.query(`INSERT INTO ${DB}.v8walk_stacks SELECT sipHash64(toUInt64(number)) AS stack_hash,
    arrayMap(d -> concat(if(d = 0, 'main', concat('fn_', toString(d), '_', toString(number % (2 + d * d)))),
      ' (/srv/app/lib/m', toString(d % 7), '.js:', toString(10 + d * 3 + number % (2 + d * d)), ')_[j]'),
      range(toUInt64(12 + number % 12))) AS frames
    FROM numbers(${distinct})`);
  return distinct;
}

// [fromBucket, toBucket) minutes before `end` (a whole minute, Unix seconds), every host.
async function fillSamples(server, end, fromMin, toMin) {
  const minutes = toMin - fromMin;
  const harmonic = Array.from({ length: STACKS }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0);
  const perBucket = RATE * BUCKET;
  const n = minutes * HOSTS * STACKS;
  // number → (minute, host, i); count ∝ 1/(i+1), at least 1
  await server.query(`INSERT INTO ${DB}.v8walk_samples (bucket, host, service, labels.key, labels.value, pid, tid,
    process, thread, stack_hash, count, cpu_ns)
    SELECT toDateTime(${end} - (${fromMin} + intDiv(number, ${HOSTS * STACKS}) + 1) * ${BUCKET}) AS bucket,
      concat('host-', toString(intDiv(number, ${STACKS}) % ${HOSTS})) AS host, 'checkout', ['env'], ['prod'],
      toUInt32(1000 + intDiv(number, ${STACKS}) % ${HOSTS}) AS pid, pid, 'node', 'main',
      sipHash64(toUInt64(${stackId(`(intDiv(number, ${STACKS}) % ${HOSTS})`, `(number % ${STACKS})`)})) AS stack_hash,
      toUInt64(greatest(1, round(${perBucket} / ${harmonic} / (number % ${STACKS} + 1)))) AS cnt,
      cnt * ${Math.round(1e9 / RATE)}
    FROM numbers(${n})`);
  return n;
}

// Run a command under /usr/bin/time -v: wall seconds, peak RSS (MB), exit code, stderr.
function timed(cmd, args) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-v', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      resolve({ code, wall, rssMb: rss ? Number(rss[1]) / 1024 : NaN, stderr: err });
    });
  });
}

async function agentInserts(server, tmp, tag) {
  const spin = spawn(NODE, ['-e', 'function spin(){let x=0;for(;;){for(let i=0;i<1e5;i++)x+=Math.sqrt(i*x%97)}}spin()'],
    { stdio: 'ignore', env: { ...process.env, V8WALK_SERVICE: 'agent-bench' } });
  await sleep(1000);
  const r = spawnSync(V8WALK, ['--pid', String(spin.pid), '--period', '1', '--duration', '6', '--export', server.url(URL_TABLE),
    '--spool', path.join(tmp, `spool-${tag}`)], { encoding: 'utf8' });
  spin.kill('SIGKILL');
  const m = /(\d+) periods: (\d+) sent .*inserts ([\d.]+) ms on average, ([\d.]+) ms at most/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`the agent (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { periods: Number(m[1]), sent: Number(m[2]), meanMs: Number(m[3]), maxMs: Number(m[4]) };
}

// report of the last `hours` of data (from `since`, Unix seconds, until now)
async function report(server, tmp, since, hours, ext) {
  const out = path.join(tmp, `report-${hours}h.${ext}`);
  const r = await timed(V8WALK, ['report', '--from', server.url(URL_TABLE), '--where', 'service=checkout', '--since', `@${since}`, '-o', out]);
  const m = /(\d+) samples in (\d+) distinct stacks .* in ([\d.]+) ms/.exec(r.stderr);
  if (r.code !== 0 || !m) throw new Error(`report --since @${since} -o .${ext} (exit ${r.code}): ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  return { ...r, samples: Number(m[1]), stacks: Number(m[2]), chMs: Number(m[3]), bytes: fs.statSync(out).size };
}

async function main() {
  if (!fs.existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is missing (apt-get install time)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-scale-'));
  const server = await createServer(tmp, 'ch');
  await server.start();
  try {
    await server.query(`CREATE DATABASE IF NOT EXISTS ${DB}`);
    const ddl = spawnSync(V8WALK, ['schema', '--database', DB], { encoding: 'utf8' });
    if (ddl.status !== 0) throw new Error(`v8walk schema: ${ddl.stderr}`);
    for (const q of ddl.stdout.replace(/^--.*$/mg, '').split(';').map((x) => x.trim()).filter(Boolean)) await server.query(q);
    const end = Math.floor(Date.now() / 1000 / BUCKET) * BUCKET;
    const distinct = await fillStacks(server);
    console.log(`scale: ${HOSTS} hosts × ${STACKS} stacks (${distinct} distinct) at ${RATE} Hz in ${BUCKET} s buckets; data in ${tmp}`);
    const rows = [];
    const sumCount = async (since) => Number((await server.query(
      `SELECT sum(count) FROM ${DB}.v8walk_samples WHERE service = 'checkout' AND bucket >= toDateTime(${since})`)).trim());
    let filled = 0;
    for (const hours of [1, HOURS]) {
      const t0 = Date.now();
      const n = await fillSamples(server, end, filled * 60, hours * 60);
      filled = hours;
      await server.query(`OPTIMIZE TABLE ${DB}.v8walk_samples FINAL`).catch(() => {}); // merged, as hours-old data is
      const genS = (Date.now() - t0) / 1000;
      const total = Number((await server.query(`SELECT count() FROM ${DB}.v8walk_samples`)).trim());
      const bytes = Number((await server.query(
        `SELECT sum(bytes) FROM system.parts WHERE active AND database = '${DB}' AND table = 'v8walk_samples'`)).trim());
      console.log(`scale: ${hours} h × ${HOSTS} hosts: ${n} rows generated in ${genS.toFixed(1)} s (${total} rows in the table, ${(bytes / 1048576).toFixed(1)} MiB on disk)`);
      const ins = await agentInserts(server, tmp, `${hours}h`);
      console.log(`scale:   agent: ${ins.sent}/${ins.periods} periods, insert ${ins.meanMs} ms mean, ${ins.maxMs} ms max`);
      const since = end - hours * 3600;
      const expect = await sumCount(since);
      for (const ext of hours === 1 ? ['svg', 'pb.gz', 'folded', 'cpuprofile'] : ['svg', 'pb.gz', 'folded']) {
        const r = await report(server, tmp, since, hours, ext);
        const ok = r.samples === expect; // (the agent's own rows are another service)
        console.log(`scale:   report ${hours}h -o .${ext}: ${r.wall.toFixed(2)} s, ClickHouse ${(r.chMs / 1000).toFixed(2)} s, ` +
          `peak RSS ${r.rssMb.toFixed(1)} MB, ${r.samples} samples (${expect} in the table${ok ? '' : ': MISMATCH'}), ${r.stacks} stacks, ${r.bytes} B`);
        if (!ok) process.exitCode = 1;
        rows.push({ data: `${hours} h × ${HOSTS} hosts`, rows: total, insert: ins, format: ext, ...r });
      }
      if (expect > 64 * 1048576) { // a cpuprofile lists every sample: refused beyond 64 Mi, saying why
        const r = await timed(V8WALK, ['report', '--from', server.url(URL_TABLE), '--where', 'service=checkout', '--since', `@${since}`,
          '-o', path.join(tmp, 'big.cpuprofile')]);
        const line = r.stderr.split('\n').find((l) => /cpuprofile lists every sample/.test(l));
        console.log(`scale:   report ${hours}h -o .cpuprofile: exit ${r.code} in ${r.wall.toFixed(2)} s, peak RSS ${r.rssMb.toFixed(1)} MB: ${line || 'NOT REFUSED'}`);
        if (r.code === 0 || !line) process.exitCode = 1;
      }
    }
    console.log('\n| data | rows in table | agent insert (mean / max) | report -o | samples | stacks | wall | ClickHouse | ClickHouse share | v8walk peak RSS |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows)
      console.log(`| ${r.data} | ${r.rows} | ${r.insert.meanMs} / ${r.insert.maxMs} ms | .${r.format} | ${r.samples} | ${r.stacks} | ${r.wall.toFixed(2)} s | ${(r.chMs / 1000).toFixed(2)} s | ${(100 * r.chMs / 1000 / r.wall).toFixed(0)} % | ${r.rssMb.toFixed(1)} MB |`);
  } finally {
    await server.kill();
    if (!process.env.KEEP) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(`scale: ${e.message}`); process.exit(1); });
