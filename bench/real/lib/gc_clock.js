// gc_clock.js — the process's own clock of its garbage collections, for the same-run oracle
// (bench/oracle.js preloads it with `-r` beside `--cpu-prof`; no workload needs it). Every GC the
// main thread reports through perf_hooks (an entry per collection: the time from V8's GC prologue
// callback to its epilogue on the main thread, scavenges and mark-compact pauses alike) is kept as
// [start, duration] in CLOCK_MONOTONIC µs — the clock of a .cpuprofile's timestamps — and written as
// JSON to the file named by V8WALK_GC_CLOCK when the process exits. Incremental-marking steps that
// run between collections are not in any entry: this clock is a lower bound of V8's GC state.
'use strict';
const fs = require('node:fs');
const { PerformanceObserver, performance } = require('node:perf_hooks');

const file = process.env.V8WALK_GC_CLOCK;
if (file) {
  const gcs = [];
  new PerformanceObserver((list) => {
    // an entry's startTime is on performance's clock (ms since timeOrigin): moved to the monotonic
    // clock through one reading of both now
    const monoUs = Number(process.hrtime.bigint()) / 1e3, perfMs = performance.now();
    for (const e of list.getEntries()) gcs.push([monoUs - (perfMs - e.startTime) * 1e3, e.duration * 1e3]);
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => fs.writeFileSync(file, JSON.stringify(gcs)));
}
