#!/usr/bin/env node
// docs-picture.js — the README's picture (`make docs-picture`): a flame graph v8walk writes of a
// real program, rendered to PNG by the headless chromium the end-to-end suite drives. The program
// is bench/real's Express server under autocannon's load (bench/real/setup.sh installs it); v8walk
// samples the server for a few seconds and writes an SVG; chromium (puppeteer-core from
// tests/consumers, scripts/setup-consumers.sh) renders it, scaled to PICTURE_WIDTH pixels, and
// pngquant (scripts/setup-deps.sh installs it) writes it to OUT with a 256-colour palette.
//   V8WALK=build/v8walk scripts/docs-picture.js [OUT (default docs/flamegraph.png)]
// Env: PICTURE_SECONDS (10) of sampling, PICTURE_WIDTH (960) pixels, CHROMIUM (/usr/bin/chromium).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OUT = path.resolve(process.argv[2] || path.join(ROOT, 'docs', 'flamegraph.png'));
const SVG = path.join(ROOT, 'build', 'docs', 'flamegraph.svg');
const RAW_PNG = path.join(ROOT, 'build', 'docs', 'flamegraph-full.png');
const SECONDS = Number(process.env.PICTURE_SECONDS || 10);
const WIDTH = Number(process.env.PICTURE_WIDTH || 960);
const MAX_BYTES = 200 * 1024;

function fail(msg) {
  console.error(`docs-picture: ${msg}`);
  process.exit(1);
}

// Start the server under load; resolves with its pid and the load's child process.
function startServer() {
  const load = spawn(process.execPath, [path.join(ROOT, 'bench', 'real', 'workloads', 'express.js'), String(SECONDS + 6)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    load.stderr.on('data', (d) => {
      err += d;
      const m = /server pid (\d+)/.exec(err);
      if (m) resolve({ load, pid: Number(m[1]) });
    });
    load.on('exit', (code) => reject(new Error(`the Express workload exited (${code}) before its server listened: ${err.trim()}`)));
  });
}

// Sample the server: the SVG v8walk writes, written to SVG.
function sample(pid) {
  fs.mkdirSync(path.dirname(SVG), { recursive: true });
  const r = spawnSync(V8WALK, ['--pid', String(pid), '--duration', String(SECONDS), '-o', SVG], { encoding: 'utf8' });
  if (r.status !== 0) fail(`v8walk exited ${r.status}: ${r.stderr.trim()}`);
  process.stderr.write(r.stderr);
}

// Render the SVG, scaled to WIDTH pixels, into RAW_PNG.
async function render() {
  let puppeteer;
  try {
    puppeteer = require(path.join(ROOT, 'tests', 'consumers', 'node_modules', 'puppeteer-core'));
  } catch {
    fail('puppeteer-core is missing: run scripts/setup-consumers.sh');
  }
  if (!fs.existsSync(CHROMIUM)) fail(`no chromium at ${CHROMIUM}: scripts/setup-deps.sh installs Debian's`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-picture-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, userDataDir,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--hide-scrollbars'],
  });
  try {
    const page = await browser.newPage();
    // the SVG's own size (width and height attributes), drawn at WIDTH / its width
    const text = fs.readFileSync(SVG, 'utf8').slice(0, 2000);
    const width = Number((/<svg[^>]*\bwidth="(\d+)"/.exec(text) || [])[1]);
    const height = Number((/<svg[^>]*\bheight="(\d+)"/.exec(text) || [])[1]);
    if (!width || !height) fail(`${SVG} has no width and height`);
    await page.setViewport({ width, height, deviceScaleFactor: WIDTH / width });
    await page.goto('file://' + SVG, { waitUntil: 'load' });
    await page.screenshot({ path: RAW_PNG, clip: { x: 0, y: 0, width, height } });
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (!fs.existsSync(V8WALK)) fail(`no v8walk at ${V8WALK}: run make`);
  const { load, pid } = await startServer();
  try {
    await new Promise((r) => setTimeout(r, 2000)); // the server's code warms up under load
    sample(pid);
  } finally {
    load.kill('SIGINT');
    spawnSync('kill', ['-TERM', String(pid)]);
  }
  await render();
  const q = spawnSync('pngquant', ['--quality=70-95', '--speed', '1', '--strip', '--force', '--output', OUT, RAW_PNG], { encoding: 'utf8' });
  if (q.error) fail('pngquant is missing: scripts/setup-deps.sh installs it');
  if (q.status !== 0) fail(`pngquant exited ${q.status}: ${q.stderr.trim()}`);
  const size = fs.statSync(OUT).size;
  console.log(`docs-picture: ${path.relative(process.cwd(), OUT)}, ${(size / 1024).toFixed(0)} KiB, from ${path.relative(process.cwd(), SVG)}`);
  if (size > MAX_BYTES) fail(`${OUT} is ${size} bytes, above ${MAX_BYTES}: lower PICTURE_WIDTH`);
}

main().catch((e) => fail(e.stack || String(e)));
