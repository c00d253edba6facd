// koa.js — an async server under load: starts workloads/koa-server.js (a Koa app on 127.0.0.1, no
// flags) and drives it with autocannon for the given seconds (lib/drive_server.js); the server's
// pid, the one to sample, is in the output's serverPid.
'use strict';
require('../lib/drive_server').driveServer('koa');
