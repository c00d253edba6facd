// sampler_cost.js — what a ptrace sample costs, measured side by side in one run on
// fixtures/demo.js: the target's per-sample pause (median, p99), v8walk's own CPU, and the share of
// samples with at least one JS frame named from the heap, at each rate (BENCH_RATES, default 99 and
// 999 Hz) and on each node of BENCH_NODES (space-separated BINARY or BINARY:LIBDIR; default the
// node running this script, or NODE_UNDER_TEST).
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const NODES = (process.env.BENCH_NODES || process.env.NODE_UNDER_TEST || process.execPath).split(/\s+/).filter(Boolean);
const RATES = (process.env.BENCH_RATES || '99 999').split(/\s+/).filter(Boolean).map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS || 20);

function run(cmd, args) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args);
    let out = '', err = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    c.on('close', (code) => resolve({ code, out, err }));
  });
}

function summary(stderr) {
  const m = /(\d+) samples in ([\d.]+) s .*?; (\d+) with JS frames; errors (\d+) .*?pause median (\d+) us, p99 (\d+) us, max \d+ us \(([\d.]+) reads per sample[^)]*\)[^\n]*?; max lag ([\d.]+) ms; v8walk CPU ([\d.]+)%/.exec(stderr);
  if (!m) throw new Error(`no summary in: ${stderr}`);
  return { samples: +m[1], secs: +m[2], js: +m[3], errors: +m[4], p50: +m[5], p99: +m[6], reads: +m[7], lag: +m[8], cpu: +m[9] };
}

async function measure(spec) {
  const [bin, libdir] = spec.split(':');
  const env = libdir ? { ...process.env, LD_LIBRARY_PATH: libdir } : process.env;
  const version = execFileSync(bin, ['--version'], { env }).toString().trim();
  const target = spawn(bin, [path.join(ROOT, 'fixtures', 'demo.js')], { stdio: 'ignore', env });
  await new Promise((r) => setTimeout(r, 1500));
  try {
    for (const rate of RATES) {
      const r = await run(V8WALK, ['--pid', String(target.pid), '--raw', '-d', String(SECONDS), '-r', String(rate), '-o', '/dev/null']);
      const s = summary(r.err);
      console.log(`${version.padEnd(9)} ${String(rate).padEnd(5)}  ${String(s.samples).padStart(7)}  ${(s.samples / s.secs).toFixed(1).padStart(6)}` +
        `  ${(100 * s.js / s.samples).toFixed(1).padStart(7)}%  ${String(s.errors).padStart(6)}  ${String(s.p50).padStart(6)} us  ${String(s.p99).padStart(6)} us` +
        `  ${s.reads.toFixed(1).padStart(5)}  ${s.lag.toFixed(1).padStart(5)} ms  ${s.cpu.toFixed(1).padStart(8)}%`);
    }
  } finally {
    target.kill();
  }
}

(async () => {
  console.log(`sampler cost on fixtures/demo.js, ${SECONDS} s per rate`);
  console.log('node      rate   samples  rate/s  named-JS  errors  pause p50  pause p99  reads  max lag  v8walk CPU');
  for (const spec of NODES) await measure(spec);
})();
