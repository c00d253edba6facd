// run.js — run a command to its end, collecting stdout and stderr (the benchmarks' profilers).
'use strict';
const { spawn } = require('node:child_process');

// {code, signal, out, err, endNs, timedOut}: endNs is CLOCK_MONOTONIC when it ended. With
// timeoutMs, a command still running then gets SIGINT, and SIGKILL 10 s later (timedOut: true).
function run(cmd, args, { timeoutMs } = {}) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', timedOut = false;
    const timers = [];
    if (timeoutMs) {
      timers.push(setTimeout(() => { timedOut = true; c.kill('SIGINT'); }, timeoutMs));
      timers.push(setTimeout(() => c.kill('SIGKILL'), timeoutMs + 10000));
    }
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    c.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, out, err, endNs: process.hrtime.bigint(), timedOut });
    });
  });
}

module.exports = { run };
