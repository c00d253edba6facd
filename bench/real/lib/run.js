// run.js — run a command to its end, collecting stdout and stderr (the benchmarks' profilers).
'use strict';
const { spawn } = require('node:child_process');

// {code, signal, out, err, endNs}: endNs is CLOCK_MONOTONIC when it ended.
function run(cmd, args) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    c.on('close', (code, signal) => resolve({ code, signal, out, err, endNs: process.hrtime.bigint() }));
  });
}

module.exports = { run };
