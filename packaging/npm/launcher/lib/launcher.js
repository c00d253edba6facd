'use strict';
// launcher.js — the npm package's `v8walk` command: finds the binary of this machine's platform
// package (@v8walk/linux-x64 or @v8walk/linux-arm64, which npm installs as an optional
// dependency when its os and cpu match; V8WALK_BINARY names another binary), runs it with the
// arguments given, stdio inherited, passes on the signals a user or a supervisor sends
// (SIGINT, SIGTERM, SIGHUP, SIGUSR1), and ends as the binary ended: its exit status, or the
// same signal. Without a binary for this machine: one line saying what to do, exit status 1.
//
// A terminal's Ctrl-C reaches the binary by itself (it shares the launcher's process group):
// the launcher's copy follows. v8walk ends a sampling run once however many arrive, and in
// launch mode it does not pass a copy from its parent on to the program (cli/stop_signals.c).
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const PLATFORM_PACKAGES = {
  'linux x64': '@v8walk/linux-x64',
  'linux arm64': '@v8walk/linux-arm64',
};
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR1'];

function ownVersion() {
  try {
    return require('../package.json').version;
  } catch {
    return 'VERSION';
  }
}

// { path } of the binary to run, or { error } with the one line to print.
function findBinary({ env = process.env, platform = process.platform, arch = process.arch,
  resolve = require.resolve } = {}) {
  if (env.V8WALK_BINARY) return { path: env.V8WALK_BINARY };
  const name = PLATFORM_PACKAGES[`${platform} ${arch}`];
  if (!name) {
    return {
      error: `v8walk: there is no v8walk binary for ${platform}/${arch}: it runs on Linux, x64 ` +
        'and arm64 (on another Linux machine, build it from source with make and set ' +
        'V8WALK_BINARY to it)',
    };
  }
  try {
    return { path: path.join(path.dirname(resolve(`${name}/package.json`)), 'bin', 'v8walk') };
  } catch {
    return {
      error: `v8walk: the package ${name}, which holds the binary for ${platform}/${arch}, is not ` +
        'installed (npm leaves optional dependencies out with --omit=optional or --no-optional): ' +
        `install v8walk again without it, use the release tarball v8walk-${ownVersion()}-linux-${arch}` +
        '.tar.gz, or set V8WALK_BINARY to a v8walk binary',
    };
  }
}

// Run the binary; the process ends when it does, the same way.
function main(args = process.argv.slice(2)) {
  const found = findBinary();
  if (found.error) {
    process.stderr.write(`${found.error}\n`);
    process.exit(1);
  }
  const child = spawn(found.path, args, { stdio: 'inherit' });
  const relay = (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(signal);
      } catch { /* it ended meanwhile */ }
    }
  };
  for (const s of FORWARDED) process.on(s, relay);
  child.on('error', (err) => {
    process.stderr.write(`v8walk: cannot run ${found.path}: ${err.message}\n`);
    process.exit(err.code === 'ENOENT' ? 127 : 126);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.removeListener(s, relay);
    if (signal === null) process.exit(code);
    // die of the same signal, so that a shell or a supervisor sees what happened; one that
    // does not end node gives the shell's status for it instead
    process.kill(process.pid, signal);
    setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 200);
  });
}

module.exports = { findBinary, main, PLATFORM_PACKAGES, FORWARDED };
