// capabilities.js — which end-to-end tests prove which column of docs/support.md's table, by
// their exact names. A capability is supported on a Node build when every test listed for it ran
// and passed there (a test that skipped itself because the build lacks what it tests, such as
// Maglev before Node 22, is listed as skipped). scripts/support-table.js refuses to write the table
// when a listed test is missing from a build's results, so a renamed or deleted test cannot drop
// out of its column unnoticed: rename it here too.
'use strict';

const BPF = '[bpf] ';

module.exports = [
  { column: 'live sampling', tests: [
    'threads that start and exit during the run are handled',
    "the target's own signals arrive while it is sampled",
    'SIGSTOP and SIGCONT of the target during sampling',
    'SIGINT ends sampling, writes the profile and detaches',
    'SIGTERM ends sampling, writes the profile and detaches',
    'v8walk killed with SIGKILL at any moment leaves the target running',
    'the target exiting during sampling ends the run cleanly',
    '--dump --json: every thread, frames innermost first, JS named',
    '--dump text: one block per thread',
    "by default the kernel copies each stopped thread's stack (on arm64: with --stack-copy kernel), and its frames are named from it",
  ] },
  { column: 'JS names', tests: [
    'hot chain outer → middle → leaf: named from the heap, at the lines being executed',
    'worker_threads: JS in a worker is named too',
    'mixed native and JS frames: libuv below, JS entry in between',
  ] },
  { column: 'exact lines', tests: [
    '[lines] exact frames: interpreter',
    '[lines] exact frames: baseline',
    '[lines] exact frames: turbofan',
    '[lines] exact frames: maglev',
    '[lines] exact frames: warm',
  ] },
  { column: 'inlined frames', tests: [
    '[inlining] TurboFan inlined inl1 → inl4 (and holdHere): one inlined frame each, at its own position',
  ] },
  { column: 'cores', tests: [
    '[cores] kernel core (abort): every thread, the crashed one first, its JS frames as the process saw them',
    '[cores] kernel core (throw): every thread, the crashed one first, its JS frames as the process saw them',
    '[cores] kernel core (worker): every thread, the crashed one first, its JS frames as the process saw them',
    '[cores] kernel core, text output: the crashed thread first, marked with its signal',
    '[cores] gcore of a live process: every thread, and the same frames as a live --dump',
    "[cores] a core cut off inside the crashed thread's stack: the innermost frames, the damage stated",
    '[cores] a core cut off in its headers or notes: one line, nothing else',
    '[cores] a core whose V8 heap was not dumped: native frames complete, JS frames unnamed, the damage stated',
    '[cores] a core of a program that is not node: its native stacks, and a warning saying so',
    '[cores] the binary is gone: refused with a hint; --exe with the same build elsewhere is accepted',
    '[cores] a different binary: refused, naming both build-ids',
    '[cores] a library that changed since the crash: stacks shown, the library named with both build-ids',
    "[cores] an executable whose build-id differs from the core's: refused",
    "[cores] the file carrying V8 differs from the core's (node, or libnode.so): refused",
    '[cores] garbage, empty, missing and non-core files: one specific line each',
    '[cores] corrupted cores: never a crash or a hang, only output, warnings or one-line errors',
    '[cores] option mistakes with --core: refused with the rule',
    '[cores] --core --version-info: what v8walk detects in the core',
  ] },
  { column: 'launch mode', tests: [
    'launch: the exit code passes through and the program is profiled with its JS named',
    'launch: death by a signal is exit code 128 + the signal',
    'launch: SIGINT sent to v8walk goes to the program, and the profile is still written',
    'launch: --duration ends sampling; v8walk then waits for the program and passes its code on',
    'launch: v8walk killed: the program runs on, neither stopped nor traced',
    'launch: a program that cannot be run: one line, exit code 127 as in a shell',
    'launch: a program that never runs node runs to its end, unsampled, and says so',
  ] },
  { column: 'perf maps', tests: [
    'perf map: node --perf-basic-prof: irregexp code is named from its perf map, and not without one',
    'perf map: a perf map is refused as a symlink or when another user owns it',
    'perf map: the last line for an address wins, and lines appended while sampling are read',
    "perf map: in a container, the map is read from the target's own /tmp under its namespace pid",
  ] },
  // the tests of eBPF alone, and with them every test of the suite's eBPF pass (`pass`: every
  // result whose name starts with it counts too)
  { column: 'eBPF mode', pass: BPF, tests: [
    'several --pid: each process is its own root, each with its JS named',
    '--all-node finds node by its symbols: a renamed node yes, a "node" that is not V8 no',
    '--kernel: kernel frames below the JS that made the system calls, named from kallsyms',
    '--mode auto falls back to eBPF when ptrace is refused (already traced), and says so',
    'without privileges: one line naming what eBPF needs',
    'a stack deeper than one sample holds is marked truncated, never padded with invented frames',
  ].map((name) => BPF + name) },
];
