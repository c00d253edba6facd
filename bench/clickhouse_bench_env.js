// clickhouse_bench_env.js — what the ClickHouse benches (clickhouse_soak.js, clickhouse_scale.js)
// share: the binary and node under test (V8WALK, NODE_UNDER_TEST) and their numeric options.
'use strict';
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const V8WALK = process.env.V8WALK || path.join(ROOT, 'build', 'v8walk');
const NODE = process.env.NODE_UNDER_TEST || process.execPath;

// The number after `name` on the command line, or dflt.
function numberArg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

module.exports = { ROOT, V8WALK, NODE, numberArg };
