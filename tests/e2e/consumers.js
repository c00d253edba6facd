// consumers.js — the real readers of v8walk's output formats, driven from the tests: `go tool
// pprof` (Debian's golang-go), speedscope's built app (npm, pinned in tests/consumers) and SVG
// files in headless Debian chromium through puppeteer-core. A missing reader is an error that
// names how to install it, never a skipped test.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./harness');

const CONSUMERS = path.join(ROOT, 'tests', 'consumers', 'node_modules');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SPEEDSCOPE = path.join(CONSUMERS, 'speedscope', 'dist', 'release', 'index.html');
const ARTEFACTS = path.join(ROOT, 'build', 'artefacts');

function need(what, ok, how) {
  if (!ok) throw new Error(`${what} is missing: ${how}`);
}

// `go tool pprof ARGS FILE` → stdout
function goPprof(args, file) {
  const r = spawnSync('go', ['tool', 'pprof', ...args, file], {
    encoding: 'utf8', env: { ...process.env, HOME: process.env.HOME || os.tmpdir(), GOFLAGS: '' }, timeout: 120000,
  });
  need('go tool pprof', !r.error, 'install Debian\'s golang-go (scripts/setup-deps.sh)');
  if (r.status !== 0) throw new Error(`go tool pprof ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

// -top rows → {name → {flat, cum}} (by function name; "(inline)" dropped), and the total
function pprofTop(file) {
  const out = goPprof(['-top', '-nodecount=1000000', '-sample_index=samples'], file);
  const total = Number((/Total samples = (\d+)/.exec(out) || [])[1]);
  const byName = {};
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$/.exec(line);
    if (!m) continue;
    const name = m[3].replace(/ \(inline\)$/, '');
    const e = byName[name] ??= { flat: 0, cum: 0 };
    e.flat += Number(m[1]);
    e.cum += Number(m[2]);
  }
  return { total, byName };
}

let puppeteer;
async function browser() {
  need('chromium', fs.existsSync(CHROMIUM), 'install Debian\'s chromium (scripts/setup-deps.sh)');
  try {
    puppeteer = require(path.join(CONSUMERS, 'puppeteer-core'));
  } catch {
    need('puppeteer-core', false, 'run scripts/setup-consumers.sh (make check does)');
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8walk-chromium-'));
  const b = await puppeteer.launch({
    executablePath: CHROMIUM, userDataDir,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = b.close.bind(b);
  b.close = async () => { await close(); fs.rmSync(userDataDir, { recursive: true, force: true }); };
  return b;
}

// A page that records dialogs and script errors (speedscope reports a failed import by alert).
async function page(b) {
  const p = await b.newPage();
  p.problems = [];
  p.on('dialog', async (d) => { p.problems.push(`dialog: ${d.message()}`); await d.dismiss(); });
  p.on('pageerror', (e) => p.problems.push(`page error: ${e.message}`));
  await p.setViewport({ width: 1400, height: 900 });
  return p;
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

// Import FILE into speedscope's app; returns the Sandwich view's table for the profile shown
// ({name → {total%, self%}}), the profile's name and the problems seen; a screenshot is kept.
async function speedscopeImport(b, file, shot) {
  need('speedscope', fs.existsSync(SPEEDSCOPE), 'run scripts/setup-consumers.sh (make check does)');
  const p = await page(b);
  await p.goto(`file://${SPEEDSCOPE}`);
  const input = await p.waitForSelector('input[type=file]');
  await input.uploadFile(file);
  await p.waitForFunction(() => /Sandwich/.test(document.body.innerText), { timeout: 30000 }).catch(() => {});
  await settle(500);
  await p.keyboard.press('3'); // the Sandwich view: a DOM table of functions
  await p.waitForFunction(() => /Symbol Name/.test(document.body.innerText), { timeout: 30000 }).catch(() => {});
  const text = await p.evaluate(() => document.body.innerText);
  fs.mkdirSync(ARTEFACTS, { recursive: true });
  await p.screenshot({ path: path.join(ARTEFACTS, shot) });
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const table = {};
  for (let i = 0; i + 2 < lines.length; i++) {
    const t = /\(([<>]?[\d.]+)%\)$/.exec(lines[i]), s = /\(([<>]?[\d.]+)%\)$/.exec(lines[i + 1]);
    if (t && s && !/\(([<>]?[\d.]+)%\)$/.test(lines[i + 2])) {
      table[lines[i + 2]] = { total: parseFloat(t[1].replace(/[<>]/, '')), self: parseFloat(s[1].replace(/[<>]/, '')) };
      i += 2;
    }
  }
  const title = lines.find((l) => /\(\d+\/\d+\)$/.test(l)) || '';
  const problems = p.problems;
  await p.close();
  return { table, title, problems, text };
}

module.exports = { goPprof, pprofTop, browser, page, speedscopeImport, settle, ARTEFACTS };
