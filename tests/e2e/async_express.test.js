// async_express.test.js — a real program: an Express 5 server (fixtures/express_async, installed
// with `npm ci` from its lockfile) whose async handlers await a loopback upstream, under loopback
// load. With --async the work done after the awaits is charged to the handler that awaited:
// every sample in that work has its own handler on the stack (priceItems resumes under `async
// order`), or one frame saying its chain ran on before it was read — never another handler; and
// each handler's share of the samples matches the share of CPU the server measured for its work
// itself (process.cpuUsage around each piece) within sampling noise. On a busy machine ptrace also
// samples a thread waiting for a CPU (README), so the samples follow the time the work took,
// waits included, which the server measures too (hrtime): where the two of its figures differ,
// the waits fell unevenly on the handlers, and the allowance grows by that much. Without --async,
// order's work in priceItems has no handler above it.
'use strict';
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness');

const DIR = path.join(h.FIXTURES, 'express_async');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-express-async-'));
require('node:test').after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const HANDLERS = ['order', 'quote', 'report'];

// Loopback load: `concurrency` clients, each request after the last one answered, the routes in turn.
function load(port, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let running = true, done = 0;
  const routes = ['/order/7', '/quote', '/report'];
  const client = (k) => {
    if (!running) return;
    http.get({ port, path: routes[k % 3], agent }, (r) => {
      r.resume();
      r.on('end', () => { done++; client(k + 1); });
    }).on('error', () => setTimeout(() => client(k + 1), 20));
  };
  for (let i = 0; i < concurrency; i++) client(i);
  return { stop() { running = false; agent.destroy(); }, done: () => done };
}

// Whose work a `work` frame is: its caller's handler.
const OWNER = { priceItems: 'order', quote: 'quote', summarize: 'report' };

// The handler a sample belongs to: the handler function on its stack, awaiting or running.
function handlerOf(frames) {
  for (const f of frames) {
    const js = h.parseJsFrame(f);
    if (!js) continue;
    const name = js.name.replace(/^async /, '').replace(/^.*\./, '');
    if (HANDLERS.includes(name)) return name;
  }
  return null;
}

async function profile(fx, args) {
  const out = path.join(tmp, `${args.join('') || 'async'}.folded`);
  // the server's figures over the sampling itself: from when v8walk says it samples to its end
  const v = h.startV8walk(['--pid', String(fx.pid), '--rate', '199', '--duration', '10', '-o', out, ...args]);
  await v.sampling;
  const before = await fx.ping(20000);
  const r = await v.done;
  const after = await fx.ping(20000);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.ok(before && after, 'the server answers');
  const counts = Object.fromEntries(HANDLERS.map((x) => [x, 0]));
  let pricedAlone = 0, inWork = 0, ranOn = 0;
  const wrong = [];
  for (const s of h.parseFolded(fs.readFileSync(out, 'utf8'))) {
    const x = handlerOf(s.frames.slice(2));
    if (x) counts[x] += s.count;
    else if (s.frames.some((f) => /^priceItems /.test(f))) pricedAlone += s.count;
    const w = s.frames.findIndex((f) => /^work \(/.test(f));
    const caller = w > 0 ? h.parseJsFrame(s.frames[w - 1]) : null;
    const owner = caller && OWNER[caller.name];
    if (!owner) continue;
    inWork += s.count;
    if (x === owner) continue;
    if (!x && s.frames.some((f) => /^\[async callers /.test(f))) ranOn += s.count;
    else wrong.push(`${owner}'s work under ${x || 'no handler'}: ${s.frames.slice(2).join(';')}`);
  }
  const took = (k) => Object.fromEntries(HANDLERS.map((x) => [x, after[k][x] - before[k][x]]));
  return { counts, wall: took('wall_us'), cpu: took('cpu_us'), pricedAlone, inWork, ranOn, wrong, stderr: r.stderr };
}

function shares(byHandler) {
  const all = HANDLERS.reduce((a, x) => a + byHandler[x], 0);
  return Object.fromEntries(HANDLERS.map((x) => [x, all ? byHandler[x] / all : 0]));
}

h.modeTest('ptrace', '[async] Express under loopback load: the work after each await under its own handler, each handler\'s share of the samples the share of CPU the server measured for it', async (t) => {
  const setup = spawnSync(path.join(DIR, 'setup.sh'), { encoding: 'utf8', timeout: 300000 });
  if (setup.status !== 0) {
    t.skip(`fixtures/express_async/setup.sh could not install Express (npm and the npm registry are needed): ${setup.stderr.trim().split('\n').pop()}`);
    return;
  }
  const fx = await h.startScript(path.join(DIR, 'server.js'));
  t.after(() => fx.stop());
  const l = load(fx.ready.port, 8);
  t.after(() => l.stop());
  await h.sleep(1500); // warm: the handlers optimized
  const on = await profile(fx, []);
  const off = await profile(fx, ['--no-async']);
  l.stop();
  const truth = shares(on.cpu), wall = shares(on.wall), got = shares(on.counts), without = shares(off.counts);
  const n = HANDLERS.reduce((a, x) => a + on.counts[x], 0);
  const fmt = (s) => HANDLERS.map((x) => `${x} ${(100 * s[x]).toFixed(1)}%`).join(', ');
  t.diagnostic(`the server's own shares of its work: CPU ${fmt(truth)}, time taken ${fmt(wall)}; sampled with --async ${fmt(got)} (${n} samples); --no-async ${fmt(without)} (${off.pricedAlone} samples in priceItems under no handler); ${l.done()} requests`);
  t.diagnostic(/v8walk: async: .*/.exec(on.stderr)?.[0] || 'no async line');
  t.diagnostic(`${on.inWork} samples in the work, ${on.ranOn} of them with a chain that ran on before it was read`);
  assert.ok(n >= 200, `samples in the handlers: ${n}`);
  // every sample of the work belongs to its own handler
  assert.deepStrictEqual(on.wrong, [], 'work under another handler than its own');
  assert.ok(on.ranOn <= 0.25 * on.inWork, `samples whose chain ran on: ${on.ranOn} of ${on.inWork}`);
  // the shares: a few standard errors of a share of n samples, three points for what the server
  // does not time (its handlers' own lines around the work, res.json), the samples whose chain ran
  // on (they have no handler: counted, not guessed), and how unevenly the waits for a CPU fell
  // (the time the work took against its CPU)
  for (const x of HANDLERS) {
    const tol = 0.03 + 3 * Math.sqrt(truth[x] * (1 - truth[x]) / n) + on.ranOn / (n + on.ranOn) +
      Math.abs(wall[x] - truth[x]);
    assert.ok(Math.abs(got[x] - truth[x]) <= tol,
      `${x}: ${(100 * got[x]).toFixed(1)}% of the samples, ${(100 * truth[x]).toFixed(1)}% of the CPU the server measured for its work (±${(100 * tol).toFixed(1)})`);
  }
  // without the chains, order's work in priceItems belongs to no handler
  assert.ok(off.pricedAlone > 0.5 * off.counts.order, `--no-async: priceItems' samples under no handler: ${off.pricedAlone}`);
});
