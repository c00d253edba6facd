// bundle.js — bundled, minified code: runs gen/bundle.js, an 11.8 MB script on ONE line that
// setup.sh builds from workloads/bundle-entry.js (the workload itself and all its libraries:
// typescript, terser, acorn, markdown-it, prettier). See bundle-entry.js for what one unit does.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const bundle = path.join(__dirname, '..', 'gen', 'bundle.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write(`bundle: ${bundle} is missing; run bench/real/setup.sh first\n`);
  process.exit(2);
}
require(bundle);
