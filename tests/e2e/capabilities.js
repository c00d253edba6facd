// capabilities.js — which end-to-end tests prove which column of the README's support table.
// A capability is supported on a Node build when every test listed for it ran and passed there.
'use strict';

module.exports = [
  { column: 'live sampling', tests: [
    /^threads that start and exit/, /the target's own signals/, /^SIGSTOP and SIGCONT/,
    /^SIGINT ends sampling/, /^SIGTERM ends sampling/, /^v8walk killed with SIGKILL/,
    /^the target exiting during sampling/, /^--dump --json: every thread/,
  ] },
  { column: 'JS names', tests: [
    /^hot chain outer → middle → leaf/, /^worker_threads: JS in a worker/, /^mixed native and JS frames/,
  ] },
  { column: 'exact lines', tests: [/^\[lines\]/] },
  { column: 'inlined frames', tests: [/^\[inlining\]/] },
  { column: 'cores', tests: [/^\[cores\]/] },
  { column: 'eBPF mode', tests: [/^\[bpf\]/] },
];
