// help-text.js — v8walk's help texts (`--help`, `report --help`, `schema --help`) read as data,
// and the man page's option items, so that the README's usage block, the man page and the help
// can be compared (scripts/readme-usage.js, tests/scripts/manpage.test.js).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const MAN_PAGE = path.join(ROOT, 'docs', 'v8walk.1');
const HELPS = { main: ['--help'], report: ['report', '--help'], schema: ['schema', '--help'] };

function binary() {
  return process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
}

// Every help text, by name (main, report, schema).
function helpTexts(v8walk = binary()) {
  const out = {};
  for (const [name, args] of Object.entries(HELPS)) out[name] = execFileSync(v8walk, args, { encoding: 'utf8' });
  return out;
}

// The usage lines at the top of a help text: up to the first blank line.
function usageLines(help) {
  const lines = help.split('\n');
  const end = lines.indexOf('');
  return lines.slice(0, end < 0 ? lines.length : end);
}

// The options a help text lists, one entry per option line: its names (-p, --pid) and its text
// with the continuation lines. An option line starts with spaces and a dash and holds the option
// column, then two or more spaces and the description ("  -p, --pid PID            the node ...";
// report's "  -o FILE, -f FORMAT, --text, --raw, --min-percent P  as when sampling").
function optionEntries(help) {
  const entries = [];
  let cur = null;
  for (const line of help.split('\n')) {
    const m = /^ {2,}(-.*?)(?: {2,}(.*))?$/.exec(line);
    if (m) {
      const names = [...m[1].matchAll(/(?:^|[\s,])(--?[A-Za-z0-9][\w-]*)/g)].map((x) => x[1]);
      if (names.length) {
        cur = { names, text: line };
        entries.push(cur);
        continue;
      }
    }
    // a continuation is indented further than an option line; anything else ends the entry
    if (cur && /^ {6,}\S/.test(line) && !/^ {2,}-/.test(line)) cur.text += '\n' + line;
    else cur = null;
  }
  return entries;
}

// The numbers an entry gives as defaults ("(default 99)", "default 8)").
function numericDefaults(text) {
  return [...text.matchAll(/default:?\s+(\d+(?:\.\d+)?)\b/g)].map((m) => m[1]);
}

// The exit statuses a help text lists ("  0    done ...", and 126/127 in the launch-mode lines).
function exitStatuses(help) {
  const i = help.indexOf('\nexit status:\n');
  if (i < 0) return [];
  const block = help.slice(i);
  const codes = [...block.matchAll(/^ {2}(\d+) {2,}/gm)].map((m) => m[1]);
  for (const m of block.matchAll(/\((\d+): it\s+cannot be run, (\d+): not found, (\d+)\+N/g)) codes.push(m[1], m[2], m[3]);
  return codes;
}

// A section of the man page's source, by its .Sh name.
function manSection(source, name) {
  const re = new RegExp(`^\\.Sh ${name.replace(/ /g, ' ')}\\n([\\s\\S]*?)(?=^\\.Sh |$(?![\\s\\S]))`, 'm');
  const m = re.exec(source);
  return m ? m[1] : '';
}

// The man page's option items: option name → the item's source (its .It line and text up to the
// next .It or .El). `.It Fl p Ar PID , Fl \-pid Ar PID` documents -p and --pid.
function manOptionItems(source) {
  const items = new Map();
  const lines = manSection(source, 'OPTIONS').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('.It ')) continue;
    let j = i + 1;
    while (j < lines.length && !/^\.(It|El)\b/.test(lines[j])) j++;
    const body = lines.slice(i, j).join('\n');
    for (const m of lines[i].matchAll(/\bFl (\\-[\w\\-]+|\w)\b/g)) {
      const name = m[1].startsWith('\\-') ? '-' + m[1].replace(/\\-/g, '-') : '-' + m[1];
      items.set(name, (items.get(name) || '') + body);
    }
  }
  return items;
}

function readManPage() {
  return fs.readFileSync(MAN_PAGE, 'utf8');
}

module.exports = {
  ROOT, MAN_PAGE, binary, helpTexts, usageLines, optionEntries, numericDefaults, exitStatuses,
  manSection, manOptionItems, readManPage,
};
