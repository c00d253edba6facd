// stats.js — the order statistics the benchmarks report: the q-quantile by nearest rank (the value
// at index floor(q·n), the last one for q = 1), NaN for no values.
'use strict';

// v sorted ascending.
function quantileSorted(v, q) {
  return v.length ? v[Math.min(v.length - 1, Math.floor(q * v.length))] : NaN;
}

function quantile(v, q) {
  return quantileSorted([...v].sort((a, b) => a - b), q);
}

module.exports = { quantile, quantileSorted };
