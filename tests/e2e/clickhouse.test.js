// clickhouse.test.js — fleet profiling into real ClickHouse servers (Debian's clickhouse-server on
// private loopback ports and data directories, clickhouse_server.js): one agent samples several
// node processes of different services and ships each period (--export); `v8walk report` of each
// service must equal, stack for stack and so function for function, the agent's own -o folded
// files of the same run (the same samples, so equality is exact). ClickHouse killed for two
// periods and restarted: nothing lost, the spool drained. A spool over its limit: the oldest
// dropped and counted, the exit status says so, and the next agent drains what was kept. TLS with
// a private CA (V8WALK_CLICKHOUSE_CA), refused without it. Two
// shards behind Distributed tables: report returns the union, and an agent inserting through them
// reaches both shards (stacks by stack_hash, samples by their host). Bad URLs, refused connections,
// wrong credentials and a table of another shape: one clear line each, a non-zero exit. A server
// down when the agent starts: one line, the periods spooled, the tables checked and created and
// the spool drained once it answers.
// Runs once per matrix run: in the ptrace pass on the first node (the exporter does not depend on
// the node line; the several-process test picks eBPF itself).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');
const ch = require('./clickhouse_server');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-clickhouse-'));
const servers = [];
test.after(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function chTest(name, fn) {
  if (h.MODE === 'ptrace') h.firstNodeTest(name, { timeout: 180000 }, fn);
}

let single;
// the single server most tests share (started once, on first use)
function singleServer() {
  single ??= (async () => {
    const s = await ch.createServer(tmp, 'single');
    servers.push(s);
    await s.start();
    return s;
  })();
  return single;
}

// what a running agent has said on stderr so far: stderr() reads it
function watch(run) {
  let text = '';
  run.child.stderr.on('data', (d) => { text += d; });
  return () => text;
}
// the end of a run that had periods spooled: every one of them sent later, nothing dropped or
// left, and every sample arrived (report of `service` equals the agent's folded files in dir)
async function assertDrained(r, spool, url, service, dir, pid) {
  assert.strictEqual(r.code, 0, r.stderr);
  const st = summary(r.stderr);
  assert.ok(st.spooled >= 2, `at least two periods spooled: ${r.stderr}`);
  assert.strictEqual(st.drained, st.spooled, 'every spooled period sent later');
  assert.strictEqual(st.dropped, 0);
  assert.strictEqual(st.pending, 0);
  assert.strictEqual(st.sent, st.periods);
  assert.deepStrictEqual(spooled(spool), [], 'the spool is empty');
  const own = foldedByPid(periodFiles(dir)).get(pid);
  const got = reportStacks((await report(url, [`service=${service}`])).stdout);
  assert.ok(total(got) > 0, 'samples arrived');
  assert.deepStrictEqual(sorted(got), sorted(own), 'every sample arrived');
}

// poll an async condition (rows forwarded by a Distributed table arrive in the background)
async function until(cond, timeoutMs) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await h.sleep(100)) if (await cond()) return true;
  return cond();
}

// -o folded files of a run → Map(pid → Map(stack without the process and thread levels → count))
function foldedByPid(files) {
  const byPid = new Map();
  for (const f of files) {
    for (const { frames, count } of h.parseFolded(fs.readFileSync(f, 'utf8'))) {
      const pid = Number(/\((\d+)\)$/.exec(frames[0])[1]);
      if (!byPid.has(pid)) byPid.set(pid, new Map());
      const m = byPid.get(pid);
      const key = frames.slice(2).join(';');
      m.set(key, (m.get(key) || 0) + count);
    }
  }
  return byPid;
}
function merge(...maps) {
  const out = new Map();
  for (const m of maps) for (const [k, v] of m || []) out.set(k, (out.get(k) || 0) + v);
  return out;
}
// report --raw → Map(stack → count) (its root levels are the filter and "all")
function reportStacks(stdout) {
  return merge(new Map(h.parseFolded(stdout).map(({ frames, count }) => [frames.slice(2).join(';'), count])));
}
// per function: the samples whose stack holds it (once per stack)
function functionTotals(stacks) {
  const out = {};
  for (const [k, v] of stacks) for (const f of new Set(k.split(';'))) out[f] = (out[f] || 0) + v;
  return out;
}
const sorted = (m) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
function periodFiles(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.folded')).map((f) => path.join(dir, f));
}
// the periods waiting in a spool directory (its .lock aside)
const spooled = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.v8wspool')).sort();
function summary(stderr) {
  const m = /export to .*: (\d+) periods: (\d+) sent \((\d+) of them from the spool\), (\d+) spooled, (\d+) dropped, (\d+) still in the spool; (\d+) rows made, (\d+) bytes sent/.exec(stderr);
  assert.ok(m, `an export summary in:\n${stderr}`);
  const [periods, sent, drained, spooled, dropped, pending, rows, bytes] = m.slice(1).map(Number);
  return { periods, sent, drained, spooled, dropped, pending, rows, bytes };
}
async function report(url, where, extra = []) {
  const args = ['report', '--from', url, ...where.flatMap((w) => ['--where', w]), '--since', '1d', '--raw', ...extra];
  const r = await runPlain(args);
  assert.strictEqual(r.code, 0, `report ${where.join(' ')}: ${r.stderr}`);
  return r;
}
// v8walk without the harness's --mode (report and schema sample nothing)
function runPlain(args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(h.V8WALK, args, { env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('close', (code) => { clearTimeout(t); resolve({ code, stdout, stderr }); });
  });
}
// the service `--label service=auto` gives a fixture without V8WALK_SERVICE: the nearest
// package.json's name above it, else the script's name
function autoService(script) {
  for (let d = path.dirname(script); ; d = path.dirname(d)) {
    const pj = path.join(d, 'package.json');
    if (fs.existsSync(pj)) return JSON.parse(fs.readFileSync(pj, 'utf8')).name;
    if (d === path.dirname(d)) return path.basename(script, '.js');
  }
}

chTest('two services sampled by one agent: report of each equals the agent\'s own folded output', async (t) => {
  const s = await singleServer();
  const a = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'checkout' } });
  t.after(() => a.stop());
  const b = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'billing' } });
  t.after(() => b.stop());
  const c = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: '' } }); // empty: not a name
  t.after(() => c.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'two-'));
  const url = s.url('default.two');
  const r = await h.runV8walk(['--mode', 'bpf', '--pid', String(a.pid), '--pid', String(b.pid), '--pid', String(c.pid),
    '--period', '1', '--duration', '4', '--export', url, '--create-schema', '--label', 'service=auto',
    '--label', 'env=e2e', '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'p-%n.folded')]);
  assert.strictEqual(r.code, 0, r.stderr);
  const st = summary(r.stderr);
  assert.ok(st.periods >= 4 && st.sent === st.periods && st.spooled === 0 && st.dropped === 0, r.stderr);
  const own = foldedByPid(periodFiles(dir));
  const rows = await s.query("SELECT service, pid, sum(count) FROM default.two_samples GROUP BY service, pid ORDER BY service FORMAT TSV");
  const services = { checkout: a.pid, billing: b.pid, [autoService(path.join(h.FIXTURES, 'chain.js'))]: c.pid };
  assert.deepStrictEqual(rows.trim().split('\n').map((l) => l.split('\t')).map(([sv, pid, n]) => [sv, Number(pid), Number(n)]).sort(),
    Object.entries(services).map(([sv, pid]) => [sv, pid, total(own.get(pid))]).sort(), 'rows per service and process');
  for (const [service, pid] of Object.entries(services)) {
    const rep = await report(url, [`service=${service}`, 'env=e2e']);
    const got = reportStacks(rep.stdout);
    assert.ok(total(got) > 0, `samples of ${service}`);
    assert.deepStrictEqual(sorted(got), sorted(own.get(pid)), `report of ${service}: stack for stack`);
    assert.deepStrictEqual(functionTotals(got), functionTotals(own.get(pid)), `report of ${service}: per function`);
  }
  // a label another agent did not set matches nothing
  const none = await report(url, ['service=checkout', 'env=prod']);
  assert.strictEqual(none.stdout.trim(), '');
  // the other formats come from the same writers
  for (const ext of ['svg', 'pb.gz', 'cpuprofile', 'speedscope.json']) {
    const out = path.join(dir, `checkout.${ext}`);
    await report(url, ['service=checkout'], ['-o', out]);
    assert.ok(fs.statSync(out).size > 100, `${ext} written`);
  }
});

chTest('--stalls with --export: each stall a row of its own; report --stalls draws their samples and lists the longest', async (t) => {
  const s = await singleServer();
  const fx = await h.startFixture('stalls.js', { env: { V8WALK_SERVICE: 'slowsvc' } });
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'stalls-'));
  const url = s.url('default.stl');
  const run = h.startV8walk(['--mode', 'bpf', '--pid', String(fx.pid), '--stalls', '50', '--period', '1',
    '--export', url, '--create-schema', '--label', 'service=auto', '--label', 'env=e2e',
    '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'p-%n.folded')]);
  await run.sampling;
  const blocks = [];
  for (const [kind, ms] of [['busy', 120], ['busy', 10], ['json', 90]]) {
    fx.child.stdin.write(`block ${kind} ${ms}\n`);
    blocks.push(await fx.next((m) => m.blocked === kind));
    await h.sleep(300);
  }
  await h.sleep(1200); // the period the last stall ended in goes out
  run.child.kill('SIGINT');
  const r = await run.done;
  assert.strictEqual(r.code, 0, r.stderr);
  const rows = (await s.query('SELECT service, pid, thread, duration_ms, samples, js + gc + native + builtin, length(stack_hashes), frames[1] '
    + 'FROM default.stl_stalls ORDER BY start_ms FORMAT TSV')).trim().split('\n').map((l) => l.split('\t'));
  assert.strictEqual(rows.length, 2, `one row per stall:\n${rows.join('\n')}\n${r.stderr}`);
  for (const [i, b] of [blocks[0], blocks[2]].entries()) {
    const [service, pid, thread, ms, samples, classed, nstacks, frame] = rows[i];
    assert.deepStrictEqual([service, Number(pid), thread], ['slowsvc', fx.pid, 'main']);
    assert.ok(Math.abs(Number(ms) - b.ms) <= Math.max(2, 0.05 * b.ms), `${ms} ms stored for a ${b.ms} ms block`);
    assert.ok(Number(samples) > 0 && Number(classed) === Number(samples) && Number(nstacks) > 0, rows[i].join(' '));
    assert.match(frame, b.blocked === 'busy' ? /^busyLoop \(/ : /^parseBig \(/);
  }
  // report --stalls: the stalls' samples, stack for stack what the agent wrote itself
  const own = foldedByPid(periodFiles(dir)).get(fx.pid);
  const rep = await report(url, ['service=slowsvc', 'env=e2e'], ['--stalls']);
  assert.deepStrictEqual(sorted(reportStacks(rep.stdout)), sorted(own), 'report --stalls: stack for stack');
  const listed = rep.stderr.split('\n').filter((l) => /^ {2}[\d.]+ ms at /.test(l));
  assert.match(rep.stderr, /2 stalls; the longest 2:/);
  assert.strictEqual(listed.length, 2);
  assert.match(listed[0], /slowsvc \(\d+\): JS \d+%.*busyLoop \(/, 'the longest first');
});

chTest('--create-schema against a server without the URL\'s database: the database is created too', async (t) => {
  const s = await singleServer();
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'fresh' } });
  t.after(() => fx.stop());
  const db = `fresh_${process.pid}`;
  assert.strictEqual((await s.query(`SELECT count() FROM system.databases WHERE name = '${db}'`)).trim(), '0');
  const without = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--export', s.url(`${db}.v8walk`),
    '--spool', path.join(fs.mkdtempSync(path.join(tmp, 'fresh-')), 'spool')]);
  assert.strictEqual(without.code, 1, without.stderr);
  assert.match(without.stderr, new RegExp(`there is no table ${db}\\.v8walk_stacks \\(create it with --create-schema`), 'without --create-schema: one line');
  const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '2', '--export', s.url(`${db}.v8walk`), '--create-schema',
    '--spool', path.join(fs.mkdtempSync(path.join(tmp, 'fresh-')), 'spool')]);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual((await s.query(`SELECT count() FROM system.databases WHERE name = '${db}'`)).trim(), '1');
  const n = Number((await s.query(`SELECT sum(count) FROM ${db}.v8walk_samples WHERE service = 'fresh'`)).trim());
  assert.ok(n > 0, `samples in ${db}.v8walk_samples: ${n}`);
});

chTest('ClickHouse killed for two periods and restarted: the periods wait in the spool and nothing is lost', async (t) => {
  const s = await singleServer();
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'spooled' } });
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'down-'));
  const url = s.url('default.down');
  const run = h.startV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '12', '--export', url,
    '--create-schema', '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'p-%n.folded')]);
  const stderr = watch(run);
  await h.waitFor(() => /export period 2: sent/.test(stderr()), 20000);
  await s.kill();
  await h.waitFor(() => (stderr().match(/: spooled \(/g) || []).length >= 2, 20000);
  await s.start();
  await assertDrained(await run.done, path.join(dir, 'spool'), url, 'spooled', dir, fx.pid);
});

chTest('ClickHouse down when the agent starts: one line, the periods spooled, then checked, created and drained once it answers', async (t) => {
  const s = await ch.createServer(tmp, 'late'); // not started yet
  servers.push(s);
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'late' } });
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'late-'));
  const spool = path.join(dir, 'spool');
  const url = s.url('default.late');
  const run = h.startV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '10', '--export', url,
    '--create-schema', '--spool', spool, '-o', path.join(dir, 'p-%n.folded')]);
  const stderr = watch(run);
  await h.waitFor(() => (stderr().match(/: spooled \(/g) || []).length >= 2, 20000);
  assert.match(stderr().split('\n')[0], /^v8walk: --export: ClickHouse at http:\/\/127\.0\.0\.1:\d+\/ is unreachable \(.*(refused|connect).*\); periods are spooled to .*spool until it answers$/i,
    'the first line says the server is unreachable and the agent goes on');
  assert.ok(spooled(spool).length >= 2, 'periods wait in the spool');
  await s.start();
  const r = await run.done;
  assert.match(r.stderr, /ClickHouse at http:\/\/127\.0\.0\.1:\d+\/ answers and its tables are v8walk's; sending the spool/);
  await assertDrained(r, spool, url, 'late', dir, fx.pid); // (into tables created late)
});

chTest('a server that answers late but proves a misconfiguration: said once, the periods stay in the spool, exit 4', async (t) => {
  const s = await ch.createServer(tmp, 'late-absent'); // not started yet
  servers.push(s);
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'absent' } });
  t.after(() => fx.stop());
  const spool = path.join(fs.mkdtempSync(path.join(tmp, 'absent-')), 'spool');
  const run = h.startV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '8', '--export', s.url('default.absent'),
    '--spool', spool]); // no --create-schema: the tables are missing
  const stderr = watch(run);
  await h.waitFor(() => /: spooled \(/.test(stderr()), 20000);
  await s.start();
  const r = await run.done;
  assert.strictEqual(r.code, 4, r.stderr);
  const said = r.stderr.split('\n').filter((l) => /there is no table default\.absent_stacks/.test(l));
  assert.strictEqual(said.length, 1, `said once:\n${r.stderr}`);
  assert.match(said[0], /^v8walk: export: there is no table .*; periods stay in the spool$/);
  const st = summary(r.stderr);
  assert.strictEqual(st.sent, 0);
  assert.ok(st.pending >= 1 && st.pending === st.spooled, r.stderr);
  assert.strictEqual(spooled(spool).length, st.pending, 'kept for a later agent');
});

chTest('a spool over its limit drops the oldest periods, counts them, and the next agent drains the rest', async (t) => {
  const s = await singleServer();
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'limited' } });
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'limit-'));
  const spool = path.join(dir, 'spool');
  const url = s.url('default.lim');
  const run = h.startV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '7', '--export', url,
    '--create-schema', '--spool', spool, '--spool-max-mb', '0.001', '-o', path.join(dir, 'p-%n.folded')]);
  const stderr = watch(run);
  await h.waitFor(() => /export period 1: sent/.test(stderr()), 20000);
  await s.kill();
  t.after(() => s.start().catch(() => {})); // for the tests after this one, should it fail
  const r = await run.done;
  await s.start();
  assert.strictEqual(r.code, 4, `exit status 4 (periods dropped or waiting): ${r.stderr}`);
  const st = summary(r.stderr);
  assert.ok(st.spooled >= 3, r.stderr);
  assert.ok(st.dropped >= 1, `the oldest dropped: ${r.stderr}`);
  assert.strictEqual(st.pending + st.dropped, st.spooled, 'every spooled period is either kept or counted as dropped');
  const kept = spooled(spool);
  assert.strictEqual(kept.length, st.pending);
  // the newest were kept: the numbers of the last `pending` spooled periods
  assert.deepStrictEqual(kept.map((f) => parseInt(f, 16)), Array.from({ length: st.pending }, (_, i) => st.spooled - st.pending + 1 + i));
  // the next agent on the same spool sends what was kept before its own periods
  const again = await h.runV8walk(['--pid', String(fx.pid), '--period', '1', '--duration', '2', '--export', url,
    '--spool', spool, '-o', path.join(dir, 'q-%n.folded')]);
  assert.strictEqual(again.code, 0, again.stderr);
  const st2 = summary(again.stderr);
  assert.strictEqual(st2.drained, st.pending, again.stderr);
  assert.deepStrictEqual(spooled(spool), []);
  // what arrived: the first run's sent periods and kept ones, and the second run's
  const files = periodFiles(dir).map((f) => ({ f, n: Number(/-(\d+)\.folded$/.exec(f)[1]), first: path.basename(f).startsWith('p-') }));
  const lostPeriods = new Set();
  // the periods of the first run that were dropped: spooled periods 1..dropped, i.e. the first
  // run's periods after the `sent` ones
  const sentFirst = st.sent;
  for (let i = 1; i <= st.dropped; i++) lostPeriods.add(sentFirst + i);
  const expect = foldedByPid(files.filter((x) => !x.first || !lostPeriods.has(x.n)).map((x) => x.f)).get(fx.pid);
  const got = reportStacks((await report(url, ['service=limited'])).stdout);
  assert.deepStrictEqual(sorted(got), sorted(expect), 'everything but the dropped periods arrived');
});

chTest('two shards behind Distributed tables: report returns the union; one agent inserts through them', async (t) => {
  const a = await ch.createServer(tmp, 'shard1');
  const b = await ch.createServer(tmp, 'shard2');
  servers.push(a, b);
  const cluster = { name: 'two', shards: [a.ports.tcp, b.ports.tcp] };
  a.setCluster(cluster);
  b.setCluster(cluster);
  await Promise.all([a.start(), b.start()]);
  // v8walk schema's DDL, without ON CLUSTER (that needs ZooKeeper): run on each server
  const ddl = await runPlain(['schema', '--cluster', 'two', '--database', 'fleet']);
  assert.strictEqual(ddl.code, 0, ddl.stderr);
  const statements = ddl.stdout.replace(/^--.*$/mg, '').split(';').map((x) => x.trim()).filter(Boolean)
    .map((x) => x.replace(' ON CLUSTER two', ''));
  assert.strictEqual(statements.length, 7); // the database; stacks, samples, stalls: local and Distributed each
  assert.strictEqual(statements[0], 'CREATE DATABASE IF NOT EXISTS fleet', 'the database first');
  for (const s of [a, b]) {
    await s.query('CREATE DATABASE IF NOT EXISTS fleet');
    for (const q of statements) await s.query(q);
  }
  // one agent per shard, each writing its shard's local tables
  const fa = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'alpha' } });
  t.after(() => fa.stop());
  const fb = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'beta' } });
  t.after(() => fb.stop());
  const dirs = [fs.mkdtempSync(path.join(tmp, 'sa-')), fs.mkdtempSync(path.join(tmp, 'sb-'))];
  const runs = await Promise.all([[fa, a], [fb, b]].map(([fx, s], i) => h.runV8walk(['--pid', String(fx.pid), '--duration', '3',
    '--export', s.url('fleet.v8walk_local'), '--spool', path.join(dirs[i], 'spool'), '-o', path.join(dirs[i], 'all.folded')])));
  for (const r of runs) assert.strictEqual(r.code, 0, r.stderr);
  const own = [foldedByPid(periodFiles(dirs[0])).get(fa.pid), foldedByPid(periodFiles(dirs[1])).get(fb.pid)];
  // each shard holds one service; the Distributed tables on shard 1 see both
  assert.strictEqual((await b.query("SELECT count() FROM fleet.v8walk_local_samples WHERE service = 'alpha'")).trim(), '0');
  const url = a.url('fleet.v8walk');
  assert.deepStrictEqual(sorted(reportStacks((await report(url, ['service=alpha'])).stdout)), sorted(own[0]));
  assert.deepStrictEqual(sorted(reportStacks((await report(url, ['service=beta'])).stdout)), sorted(own[1]), 'the other shard\'s rows');
  assert.deepStrictEqual(sorted(reportStacks((await report(url, [])).stdout)), sorted(merge(own[0], own[1])), 'the union');

  // one agent inserting through the Distributed tables: stacks land on both shards (sharded by
  // stack_hash), its samples on the shard its host hashes to (cityHash64(host)), and report
  // through the Distributed tables equals its own folded output
  // (tables of their own: the stacks above went to both shards' local tables)
  const dist = await runPlain(['schema', '--cluster', 'two', '--database', 'fleet', '--table', 'dist']);
  assert.strictEqual(dist.code, 0, dist.stderr);
  for (const s of [a, b])
    for (const q of dist.stdout.replace(/^--.*$/mg, '').split(';').map((x) => x.trim()).filter(Boolean)) await s.query(q.replace(' ON CLUSTER two', ''));
  const distUrl = a.url('fleet.dist');
  const fc = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'gamma' } });
  t.after(() => fc.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'sd-'));
  const r = await h.runV8walk(['--pid', String(fc.pid), '--period', '1', '--duration', '3', '--export', distUrl,
    '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'p-%n.folded')]);
  assert.strictEqual(r.code, 0, r.stderr);
  const st = summary(r.stderr);
  assert.ok(st.sent === st.periods && st.periods >= 3, r.stderr);
  const mine = foldedByPid(periodFiles(dir)).get(fc.pid);
  const localSamples = (s) => s.query("SELECT count(), sum(count) FROM fleet.dist_local_samples WHERE service = 'gamma' FORMAT TSV")
    .then((x) => x.trim().split('\t').map(Number));
  // the server that took the inserts forwards them in the background
  await until(async () => (await localSamples(a))[1] + (await localSamples(b))[1] === total(mine), 20000);
  const host = os.hostname().replace(/[\\']/g, '');
  const shard = Number((await a.query(`SELECT cityHash64('${host}') % 2`)).trim());
  const [onA, onB] = [await localSamples(a), await localSamples(b)];
  assert.deepStrictEqual([onA[1], onB[1]], shard === 0 ? [total(mine), 0] : [0, total(mine)], `the host's samples on shard ${shard + 1}`);
  const ownStacks = new Set(Object.keys(sorted(mine)));
  const storedStacks = async () => Number((await a.query('SELECT uniqExact(stack_hash) FROM fleet.dist_stacks')).trim());
  await until(async () => (await storedStacks()) >= ownStacks.size, 20000);
  const hashes = async (s) => (await s.query('SELECT stack_hash FROM fleet.dist_local_stacks')).trim().split('\n').filter(Boolean);
  const [stacksA, stacksB] = [await hashes(a), await hashes(b)];
  assert.ok(stacksA.length > 0 && stacksB.length > 0, `stacks rows on both shards (${stacksA.length}, ${stacksB.length})`);
  assert.deepStrictEqual(stacksA.filter((x) => stacksB.includes(x)), [], 'each stack on one shard');
  assert.deepStrictEqual(sorted(reportStacks((await report(distUrl, ['service=gamma'])).stdout)), sorted(mine),
    'report through the Distributed tables equals the agent\'s folded output');
});

chTest('https:// and clickhouses:// with the server\'s CA from V8WALK_CLICKHOUSE_CA; without it, one line', async (t) => {
  const s = await ch.createServer(tmp, 'tls', { tls: true });
  servers.push(s);
  await s.start();
  const fx = await h.startFixture('chain.js', { env: { V8WALK_SERVICE: 'secure' } });
  t.after(() => fx.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'tls-'));
  const https = `https://127.0.0.1:${s.ports.https}/default.tls`;
  const untrusted = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--export', https, '--create-schema',
    '--spool', path.join(dir, 'spool')]);
  assert.strictEqual(untrusted.code, 1);
  assert.match(untrusted.stderr.trim(), /^v8walk: --export: cannot reach ClickHouse at https:\/\/127\.0\.0\.1:\d+\/ \(.*certificate/);
  const env = { V8WALK_CLICKHOUSE_CA: s.ca };
  const r = await h.runV8walk(['--pid', String(fx.pid), '--duration', '2', '--export', `clickhouses://127.0.0.1:${s.ports.https}/default.tls`,
    '--create-schema', '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'all.folded')], { env });
  assert.strictEqual(r.code, 0, r.stderr);
  const rep = await runPlain(['report', '--from', https, '--where', 'service=secure', '--since', '1h', '--raw'], env);
  assert.strictEqual(rep.code, 0, rep.stderr);
  assert.deepStrictEqual(sorted(reportStacks(rep.stdout)), sorted(foldedByPid([path.join(dir, 'all.folded')]).get(fx.pid)));
});

chTest('bad URLs, refused connections, wrong credentials, a table of another shape: one clear line each', async (t) => {
  const s = await singleServer();
  const fx = await h.startFixture('chain.js');
  t.after(() => fx.stop());
  await s.query('CREATE DATABASE IF NOT EXISTS other');
  await s.query('CREATE TABLE IF NOT EXISTS other.v8walk_stacks (stack_hash UInt64, frames Array(String)) ENGINE = Memory');
  await s.query('CREATE TABLE IF NOT EXISTS other.v8walk_samples (bucket DateTime, service String, n UInt32) ENGINE = Memory');
  const refused = await ch.freePort();
  const agent = (url, env = {}) => h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--export', url,
    '--spool', path.join(tmp, 'err-spool')], { env });
  const cases = [
    ['a bad scheme', () => agent('mysql://127.0.0.1/db'), 2, /--export mysql:\/\/127\.0\.0\.1\/db: the address must start with clickhouse:\/\//],
    ['credentials in the URL', () => agent(`clickhouse://u:p@127.0.0.1:${s.ports.http}/default`), 2, /holds credentials, which `ps` would show/],
    ['a bad port', () => agent('clickhouse://127.0.0.1:99999/default'), 2, /the port must be a number from 1 to 65535/],
    ['wrong credentials', () => agent(s.url('default'), { V8WALK_CLICKHOUSE_USER: 'agent', V8WALK_CLICKHOUSE_PASSWORD: 'wrong' }), 1, /refused the credentials.*Wrong password/],
    ['a table of another shape', () => agent(s.url('other')), 1, /table other\.v8walk_samples is not v8walk's: it has no column `host String`/],
    ['no table', () => agent(s.url('other.absent')), 1, /there is no table other\.absent_stacks/],
    ['report: a refused connection', () => runPlain(['report', '--from', `clickhouse://127.0.0.1:${refused}/default`]), 1, /v8walk report: cannot reach ClickHouse/],
    ['report: wrong credentials', () => runPlain(['report', '--from', s.url('default')], { V8WALK_CLICKHOUSE_USER: 'agent', V8WALK_CLICKHOUSE_PASSWORD: 'x' }), 1, /refused the credentials/],
    ['report: another shape', () => runPlain(['report', '--from', s.url('other')]), 1, /is not v8walk's/],
    ['report: a control character in --where', () => runPlain(['report', '--from', s.url('default'), '--where', 'service=a\tb']), 2, /holds a control character/],
  ];
  for (const [name, run, code, re] of cases) {
    const r = await run();
    const lines = r.stderr.trim().split('\n');
    assert.strictEqual(r.code, code, `${name}: exit ${r.code}, ${r.stderr}`);
    assert.strictEqual(lines.length, 1, `${name}: one line, not:\n${r.stderr}`);
    assert.match(lines[0], re, name);
  }
  // a refused connection is not fatal to the agent: one line, its period spooled, exit 4 (waiting)
  const down = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--export', `clickhouse://127.0.0.1:${refused}/default`,
    '--spool', path.join(tmp, 'refused-spool')]);
  assert.strictEqual(down.code, 4, down.stderr);
  const downLines = down.stderr.trim().split('\n');
  assert.match(downLines[0], /^v8walk: --export: ClickHouse at http:\/\/127\.0\.0\.1:\d+\/ is unreachable \(.*(refused|connect).*\); periods are spooled/i);
  assert.strictEqual(downLines.filter((l) => /export|ClickHouse/.test(l)).length, 2, `that line and the summary:\n${down.stderr}`);
  assert.strictEqual(summary(down.stderr).pending, 1);
  // right credentials from a file work (and the agent user exists: the wrong password was the fault)
  const cred = path.join(tmp, 'cred');
  fs.writeFileSync(cred, `agent:${ch.AGENT_PASSWORD}\n`, { mode: 0o600 });
  const ok = await h.runV8walk(['--pid', String(fx.pid), '--duration', '1', '--export', s.url('default.creds'), '--create-schema',
    '--export-credentials', cred, '--spool', path.join(tmp, 'cred-spool'), '-q']);
  assert.strictEqual(ok.code, 0, ok.stderr);
  assert.ok(Number((await s.query('SELECT count() FROM default.creds_samples')).trim()) > 0, 'rows inserted as agent');
});

chTest('report --diff-since: widths from the new range, red where a frame\'s share grew, blue where it shrank', async (t) => {
  const s = await singleServer();
  const url = s.url('default.diff');
  const env = { V8WALK_SERVICE: 'diffsvc' };
  const chain = await h.startFixture('chain.js', { env });
  t.after(() => chain.stop());
  const dir = fs.mkdtempSync(path.join(tmp, 'diff-'));
  // the old range: chain.js alone
  const t0 = Math.floor(Date.now() / 1000);
  const before = await h.runV8walk(['--pid', String(chain.pid), '--duration', '2', '--export', url, '--create-schema',
    '--spool', path.join(dir, 'spool'), '-q']);
  assert.strictEqual(before.code, 0, before.stderr);
  await h.sleep(1100); // the new range starts in a later second
  const t1 = Math.floor(Date.now() / 1000);
  // the new range: chain.js and demo.js side by side (demo.js started without the harness)
  const demo = spawn(h.NODE, [path.join(h.FIXTURES, 'demo.js')], { env: { ...process.env, ...h.NODE_ENV, ...env }, stdio: 'ignore' });
  t.after(() => demo.kill('SIGKILL'));
  await h.sleep(500);
  const after = await h.runV8walk(['--mode', 'bpf', '--pid', String(chain.pid), '--pid', String(demo.pid), '--duration', '3',
    '--export', url, '--spool', path.join(dir, 'spool'), '-o', path.join(dir, 'new.folded')]);
  assert.strictEqual(after.code, 0, after.stderr);
  const svg = path.join(dir, 'diff.svg');
  const r = await runPlain(['report', '--from', url, '--where', 'service=diffsvc', '--since', `@${t1}`, '--until', 'now',
    '--diff-since', `@${t0}..@${t1}`, '-o', svg]);
  assert.strictEqual(r.code, 0, r.stderr);
  const boxes = [...fs.readFileSync(svg, 'utf8').matchAll(/<title>([^<]*?) \(([+-][\d.]+)% of all samples against the baseline\) \((\d+) samples?[^<]*<\/title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/g)]
    .map((m) => ({ name: m[1], change: Number(m[2]), n: Number(m[3]), rgb: [Number(m[4]), Number(m[5]), Number(m[6])] }));
  assert.ok(boxes.length > 10, 'frames drawn');
  // widths: the new range's samples
  const own = total(foldedByPid([path.join(dir, 'new.folded')]).get(chain.pid)) + total(foldedByPid([path.join(dir, 'new.folded')]).get(demo.pid));
  assert.strictEqual(boxes[0].n, own, 'the root is as wide as the new range');
  const red = (b) => b.rgb[0] === 255 && b.rgb[1] < 255;
  const blue = (b) => b.rgb[2] === 255 && b.rgb[0] < 255;
  const measure = boxes.filter((b) => /^measure /.test(b.name));
  assert.ok(measure.length && measure.every((b) => red(b) && b.change > 0), `demo.js's frames are new: red (${JSON.stringify(measure[0])})`);
  const leaf = boxes.filter((b) => /^leaf /.test(b.name));
  assert.ok(leaf.length && leaf.some((b) => blue(b) && b.change < 0), `chain.js's share shrank: blue (${JSON.stringify(leaf)})`);
  assert.deepStrictEqual(boxes[0].rgb, [255, 255, 255], 'the whole is unchanged: white');
  // --diff-since draws an SVG only
  const bad = await runPlain(['report', '--from', url, '--diff-since', '2h..1h', '--raw']);
  assert.strictEqual(bad.code, 2);
  assert.match(bad.stderr, /--diff-since draws a differential flame graph/);
});
