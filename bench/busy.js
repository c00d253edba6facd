// busy.js — the benchmark's CPU-bound target: one thread running JavaScript (three levels of calls
// and some allocation) in small slices, so that it still answers the control protocol
// (fixtures/lib/control.js). Each pong carries the work done so far and the CPU time used.
'use strict';
const control = require('../fixtures/lib/control');

let iterations = 0;

function hash(s, seed) {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

function record(i) {
  return { id: i, name: 'item' + (i & 1023), tags: [i & 7, i & 15] };
}

function work(n) {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const r = record(i);
    acc = (acc + hash(r.name, r.id) + r.tags[1]) | 0;
  }
  return acc;
}

let sink = 0;
function slice() {
  sink = (sink + work(20000)) | 0; // about a millisecond
  iterations++;
  setImmediate(slice);
}

slice();
control.ready({}, () => {
  const c = process.cpuUsage();
  return { iterations, cpuUs: c.user + c.system, sink: sink & 1 };
});
