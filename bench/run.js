#!/usr/bin/env node
// run.js — `make bench`: every cost and accuracy benchmark in one run, and its record. Each step's
// output goes to the terminal and into bench/results/YYYY-MM-DD-COMMIT.md (COMMIT: the short hash
// of HEAD, with -dirty when the tree has changes), under a header that names the machine, the
// kernel, node and the load; bench/summary.js's cost table of the run comes first. After a full
// run (not --quick) the table between the cost-table markers of docs/cost.md is replaced by it.
//   V8WALK=build/v8walk FLOOR_PROBE=... CPU_BURN=... node bench/run.js [--quick] [--workloads a,b]
// --quick: real_cost.js and oracle.js in their --quick forms only, into ...-quick.md, docs/cost.md
// left as it is (a check that the benchmarks run, not a measurement). --workloads goes to both.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { costTable } = require('./summary');
const { writeBlock } = require('../scripts/lib/readme-block');

const ROOT = path.resolve(__dirname, '..');
const QUICK = process.argv.includes('--quick');
const wi = process.argv.indexOf('--workloads');
const WORKLOADS = wi > 0 ? ['--workloads', process.argv[wi + 1]] : [];
const COST_DOC = path.join(ROOT, 'docs', 'cost.md');
const REAL_COST_JSON = path.join(ROOT, 'build', 'bench', 'real_cost.json');

const STEPS = [
  { title: 'Sample cost on real programs (bench/real_cost.js)', cmd: ['node', 'bench/real_cost.js', ...WORKLOADS], quick: true },
  { title: "v8walk's profile against V8's own (bench/oracle.js)", cmd: ['node', 'bench/oracle.js', ...WORKLOADS], quick: true },
  { title: 'Throughput under v8walk and perf record (bench/overhead.js)', cmd: ['node', 'bench/overhead.js'] },
  { title: 'Sample cost and named-JS share, this node (bench/sampler_cost.js)', cmd: ['node', 'bench/sampler_cost.js'] },
  { title: 'Sample cost and named-JS share per Node line (bench/versions.sh)', cmd: ['bench/versions.sh'] },
  { title: 'Postmortem speed on a large core (bench/core-speed.sh)', cmd: ['bench/core-speed.sh'] },
  { title: 'What source maps cost (bench/sourcemap.sh)', cmd: ['bench/sourcemap.sh'] },
];

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

// The commit measured: HEAD's short hash, -dirty when tracked files differ from it (the results
// and docs/cost.md this writes do not count).
function commitId() {
  let id;
  try { id = git('rev-parse', '--short=7', 'HEAD'); } catch { return 'nogit'; }
  const changed = git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean)
    .map((l) => l.slice(3)).filter((f) => f !== 'docs/cost.md' && !f.startsWith('bench/results/'));
  return changed.length ? `${id}-dirty` : id;
}

// Run one step: its stdout (kept) and stderr to the terminal; resolves with its output and status.
function runStep(step) {
  return new Promise((resolve) => {
    const [cmd, ...args] = step.cmd;
    const child = spawn(cmd === 'node' ? process.execPath : cmd, [...args, ...(QUICK && step.quick ? ['--quick'] : [])],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.on('error', (e) => resolve({ out: out + `\n(${e.message})\n`, status: 127 }));
    child.on('close', (code, sig) => resolve({ out, status: code ?? 128 + (os.constants.signals[sig] || 0) }));
  });
}

function machine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0] ? cpus[0].model.trim() : 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `Linux ${os.release()}, node ${process.version}`;
}

async function main() {
  const started = new Date();
  const commit = commitId();
  const date = started.toISOString().slice(0, 10);
  const name = `${date}-${commit}${QUICK ? '-quick' : ''}.md`;
  const file = path.join(ROOT, 'bench', 'results', name);
  const load0 = os.loadavg();
  const sections = [];
  let failed = 0;
  let costLines = null;
  for (const step of STEPS.filter((s) => !QUICK || s.quick)) {
    console.log(`\n== ${step.title}`);
    const t0 = Date.now();
    if (step.cmd[1] === 'bench/real_cost.js') fs.rmSync(REAL_COST_JSON, { force: true });
    const { out, status } = await runStep(step);
    if (status !== 0) failed++;
    if (step.cmd[1] === 'bench/real_cost.js' && status === 0 && fs.existsSync(REAL_COST_JSON))
      costLines = costTable(JSON.parse(fs.readFileSync(REAL_COST_JSON, 'utf8')));
    sections.push(`## ${step.title}\n\n${status === 0 ? '' : `**exit status ${status}**\n\n`}` +
      `${((Date.now() - t0) / 60000).toFixed(1)} min.\n\n\`\`\`text\n${out.replace(/\n*$/, '\n')}\`\`\`\n`);
  }
  const load1 = os.loadavg();
  const label = `\`make bench\`${QUICK ? ' --quick' : ''} of ${date}, v8walk at commit ${commit}; ${machine()}; ` +
    `load ${load0[0].toFixed(1)} at the start, ${load1[0].toFixed(1)} at the end.`;
  const text = [
    `# v8walk benchmarks: ${date}, commit ${commit}${QUICK ? ' (quick)' : ''}`, '',
    `Written by ${label} Started ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
    `${((Date.now() - started) / 60000).toFixed(0)} min in all. The machine may have been shared: read ratios beside their ` +
    'confidence intervals, and the unprofiled phases\' spread as the noise.', '',
    ...(costLines ? ['## Summary', '', ...costLines, ''] : []),
    ...sections,
  ].join('\n');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.log(`\nbench: written ${path.relative(process.cwd(), file)}`);
  if (costLines && !QUICK && !failed) {
    writeBlock('cost-table', `\n${label} Results: [bench/results/${name}](../bench/results/${name}).\n\n${costLines.join('\n')}\n`, COST_DOC);
    console.log(`bench: docs/cost.md's table is now this run's`);
  }
  if (failed) {
    console.error(`bench: ${failed} step(s) failed (their exit status is in ${name})`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
