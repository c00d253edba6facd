#!/usr/bin/env node
// v8walk.js — the `v8walk` command of the npm package: runs this platform's v8walk binary
// (lib/launcher.js says how).
'use strict';
require('../lib/launcher.js').main();
