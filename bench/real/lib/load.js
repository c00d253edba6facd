// load.js — loopback load for the Express workload: autocannon against 127.0.0.1:PORT for SECONDS,
// over a fixed mix of the server's routes, returning requests/s and latency percentiles (ms).
'use strict';
const autocannon = require('autocannon');

const ROUTES = ['/page/3', '/api/items?n=120', '/search?q=frame', '/page/11', '/api/items?n=40'];

function load(port, seconds, connections = 8) {
  return new Promise((resolve, reject) => {
    autocannon({
      url: `http://127.0.0.1:${port}`, connections, duration: seconds,
      requests: ROUTES.map((p) => ({ method: 'GET', path: p })),
    }, (err, r) => {
      if (err) return reject(err);
      resolve({
        requestsPerSecond: r.requests.average, requests: r.requests.total, errors: r.errors + r.non2xx + r.timeouts,
        p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max,
      });
    });
  });
}

module.exports = { load };
