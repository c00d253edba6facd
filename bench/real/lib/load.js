// load.js — loopback load for the server workloads: autocannon against 127.0.0.1:PORT for SECONDS,
// over a fixed mix of the server's routes (its entry's `routes` in workloads.js), returning
// requests/s and latency percentiles (ms).
// The percentiles are of every 2xx response's own time (autocannon's 'response' event, µs
// resolution), not autocannon's summary: that histogram holds whole milliseconds, and a p99 of
// 7-10 ms rounded to the millisecond moves a profiled ÷ unprofiled ratio in steps of 10-14 %.
'use strict';
const autocannon = require('autocannon');
const { quantileSorted } = require('./stats');

function load(port, seconds, routes, connections = 8) {
  return new Promise((resolve, reject) => {
    const times = [];
    const instance = autocannon({
      url: `http://127.0.0.1:${port}`, connections, duration: seconds,
      requests: routes.map((p) => ({ method: 'GET', path: p })),
    }, (err, r) => {
      if (err) return reject(err);
      const v = Float64Array.from(times).sort();
      const ms = (q) => (v.length ? +quantileSorted(v, q).toFixed(3) : 0);
      resolve({
        requestsPerSecond: r.requests.average, requests: r.requests.total, errors: r.errors + r.non2xx + r.timeouts,
        p50Ms: ms(0.5), p99Ms: ms(0.99), maxMs: ms(1),
      });
    });
    instance.on('response', (client, statusCode, bytes, ms) => {
      if (statusCode >= 200 && statusCode < 300) times.push(ms);
    });
  });
}

module.exports = { load };
