// drive_server.js — a server workload run by hand: starts the server script of workload NAME
// (workloads.js: kind 'server'; no node flags) and drives it with autocannon over its routes (8
// connections, loopback only) for the given seconds (argv[2], else WORKLOAD_SECONDS, else 10), then
// prints one JSON line: requests/s, p50/p99/max latency in ms, errors. The server is a separate
// process: it is the one to sample (its pid is in the output's serverPid, and on stderr as soon as
// it listens).
'use strict';
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const { load } = require('./load');
const { byName } = require('../workloads');

function driveServer(name) {
  const w = byName(name);
  const seconds = Number(process.argv[2] ?? process.env.WORKLOAD_SECONDS ?? 10);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    process.stderr.write(`${name}: the duration must be a positive number of seconds, got '${process.argv[2]}'\n`);
    process.exit(2);
  }
  const server = spawn(process.execPath, [w.script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: server.stdout });
  const timeout = setTimeout(() => { process.stderr.write(`${name}: the server did not start in 20 s\n`); server.kill('SIGKILL'); process.exit(1); }, 20000);
  rl.once('line', async (line) => {
    clearTimeout(timeout);
    const { listening } = JSON.parse(line);
    process.stderr.write(`${name}: server pid ${server.pid} on 127.0.0.1:${listening}\n`);
    try {
      const r = await load(listening, seconds, w.routes);
      process.stdout.write(JSON.stringify({ done: true, workload: name, unit: 'requests', seconds, serverPid: server.pid, ...r }) + '\n');
    } finally {
      server.kill('SIGTERM');
    }
  });
  server.on('exit', (code, sig) => { if (code) { process.stderr.write(`${name}: the server exited with ${code ?? sig}\n`); process.exit(1); } });
}

module.exports = { driveServer };
