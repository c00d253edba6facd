// summary.js — the cost table of docs/cost.md, from what bench/real_cost.js wrote
// (build/bench/real_cost.json): one column per workload, one row per figure — the main thread's
// pause under ptrace, the stops whose stack the kernel copied, reads per sample, v8walk's CPU
// (steady, over the whole phase, over a long run), missed samples, eBPF's CPU, the pause on a
// saturated machine, the same at the higher rate, and the throughput pairs (profiled ÷
// unprofiled, mean ± 95 % CI, with the burn control's figure beside v8walk's). bench/run.js puts
// it at the top of each results file and, after a full run, into docs/cost.md.
//   node bench/summary.js [build/bench/real_cost.json]    prints the table
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const num = (x, d = 1) => (x === undefined || x === null || Number.isNaN(x) || !Number.isFinite(x) ? '—' : x.toFixed(d));
const int = (x) => (x === undefined || x === null || !Number.isFinite(x) ? '—' : Math.round(x).toLocaleString('en-US'));
const pct = (x, d = 1) => (num(x, d) === '—' ? '—' : `${num(x, d)} %`);

// The rates the run sampled at, lowest first, from its ptrace configs ("ptrace 99 Hz").
function ratesOf(results) {
  const rates = new Set();
  for (const r of results) for (const row of r.rows || []) {
    const m = /^ptrace (\d+) Hz$/.exec(row.config);
    if (m) rates.add(Number(m[1]));
  }
  return [...rates].sort((a, b) => a - b);
}

// One throughput-pair cell: "0.981 ± 0.078 [2.7 %]" (and the server's p99 latency ratio).
function pairCell(row) {
  if (!row) return '—';
  let s = `${num(row.tput.mean, 3)} ± ${num(row.tput.half, 3)}`;
  if (row.cpuPercent !== undefined && Number.isFinite(row.cpuPercent)) s += ` [${num(row.cpuPercent)} %]`;
  if (row.p99) s += ` (p99 × ${num(row.p99.mean, 2)})`;
  return s;
}

// The table's lines (Markdown) for a real_cost.json object.
function costTable(data) {
  const results = data.results || [];
  const [lo, hi] = ratesOf(results);
  const row = (r, name) => (r.rows || []).find((x) => x.config === name);
  const pair = (r, test) => (r.pairRows || []).find((x) => test(x.config));
  const longS = (results.flatMap((r) => (r.rows || []).map((x) => /^ptrace \d+ Hz (\d+) s$/.exec(x.config))).find(Boolean) || [])[1];
  const lines = [];
  const head = [`ptrace, ${lo} Hz`, ...results.map((r) => r.workload)];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  const add = (label, cell) => lines.push(`| ${label} | ${results.map((r) => cell(r)).join(' | ')} |`);
  const p = (r) => row(r, `ptrace ${lo} Hz`) || {};
  add("main thread's pause p50 / p99 / max (µs)", (r) => `${int(p(r).pauseMedianUs)} / ${int(p(r).pauseP99Us)} / ${int(p(r).pauseMaxUs)}`);
  add('stops whose stack the kernel copied', (r) => pct(p(r).kernelCopyPercent));
  add('reads of target memory per sample, steady', (r) => num(p(r).steadyReads));
  const phaseS = data.phaseS || 6;
  add(`v8walk's CPU, steady (seconds ${phaseS / 2}–${phaseS} of a ${phaseS} s run)`, (r) => pct(p(r).steadyCpuPercent));
  add("v8walk's CPU over the whole run, attaching included", (r) => pct(p(r).cpuPercent));
  if (longS) {
    add(`v8walk's CPU, seconds ${longS / 2}–${longS} of a ${longS} s run: ptrace / eBPF`, (r) =>
      `${pct((row(r, `ptrace ${lo} Hz ${longS} s`) || {}).steadyCpuPercent)} / ${pct((row(r, `bpf ${lo} Hz ${longS} s`) || {}).steadyCpuPercent)}`);
  }
  add('missed samples', (r) => pct(p(r).missedPercent, 2));
  add("eBPF mode's CPU, steady (nothing is stopped)", (r) => pct((row(r, `bpf ${lo} Hz`) || {}).steadyCpuPercent));
  add('CPU saturated: pause p99 / max (µs)', (r) => {
    const b = row(r, `ptrace ${lo} Hz +busy`) || {};
    return `${int(b.pauseP99Us)} / ${int(b.pauseMaxUs)}`;
  });
  if (hi) {
    const q = (r) => row(r, `ptrace ${hi} Hz`) || {};
    add(`at ${hi} Hz: v8walk's CPU, steady; missed`, (r) => `${pct(q(r).steadyCpuPercent)}; ${pct(q(r).missedPercent, 2)}`);
    add(`at ${hi} Hz: stops the kernel copied; longest stop (µs)`, (r) => `${pct(q(r).kernelCopyPercent)}; ${int(q(r).pauseMaxUs)}`);
  }
  if (results.some((r) => (r.pairRows || []).length)) {
    lines.push('', `| throughput, profiled ÷ unprofiled (mean ± 95 % CI) [the profiler's CPU] | ${results.map((r) => r.workload).join(' | ')} |`,
      `|---|${results.map(() => '---').join('|')}|`);
    for (const hz of [lo, hi].filter(Boolean)) {
      add(`ptrace ${hz} Hz`, (r) => pairCell(pair(r, (c) => c === `ptrace ${hz} Hz`)));
      add('burn: the same CPU, nothing stopped', (r) => pairCell(pair(r, (c) => c.startsWith('burn ') && c.endsWith(` at ${hz} Hz`))));
      add(`eBPF ${hz} Hz`, (r) => pairCell(pair(r, (c) => c === `bpf ${hz} Hz`)));
    }
  }
  return lines;
}

function main() {
  const file = process.argv[2] || path.join(__dirname, '..', 'build', 'bench', 'real_cost.json');
  console.log(costTable(JSON.parse(fs.readFileSync(file, 'utf8'))).join('\n'));
}

if (require.main === module) main();
module.exports = { costTable, ratesOf };
