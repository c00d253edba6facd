#!/bin/sh
# sourcemap.sh — what source maps cost: a generated TypeScript program of many functions bundled
# by esbuild (minified, several MB of mappings), held spinning; then
#   1. the map alone (bench/sourcemap_cost.c): decoding CPU time and size, sm_apply per frame;
#   2. v8walk --dump with maps on and off: time and peak memory (the summary gives the load time
#      and the decoded map's size);
#   3. a sampled profile at 499 Hz for 5 s with maps on and off: v8walk's CPU per sample.
# Uses the pinned esbuild of fixtures/sourcemaps (its build.sh installs it).
set -eu
cd "$(dirname "$0")/.."
: "${V8WALK:=$PWD/build/v8walk}"
: "${FUNCS:=60000}"
fixtures/sourcemaps/build.sh
dir=$(mktemp -d /tmp/v8walk-smbench-XXXXXX)
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
node -e '
const n = +process.argv[1], out = [];
for (let i = 0; i < n; i++)
  out.push(`export function handler${i}(req: { id: number }): number {\n  const value = req.id * ${i};\n  return value + ${i % 7};\n}\n`);
out.push(`export const all = [${Array.from({ length: n }, (_, i) => `handler${i}`).join(", ")}];\n`);
out.push(`export function spin(): void {\n  let x = 0;\n  for (;;) { x += all[x % all.length]({ id: x & 1023 }) & 1; }\n}\n`);
require("fs").writeFileSync(process.argv[2], out.join(""));
require("fs").writeFileSync(process.argv[3], `import { spin } from "./big";\nspin();\n`);
' "$FUNCS" "$dir/big.ts" "$dir/main.ts"
fixtures/sourcemaps/node_modules/.bin/esbuild "$dir/main.ts" --bundle --platform=node --minify \
	--sourcemap --outfile="$dir/app.js" --log-level=warning
node -e '
const m = JSON.parse(require("fs").readFileSync(process.argv[1]));
console.log(`bundle: ${(require("fs").statSync(process.argv[2]).size / 1048576).toFixed(1)} MB of JS; map: ${m.mappings.length} bytes of mappings, ${m.names.length} names`);
' "$dir/app.js.map" "$dir/app.js"
${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -o "$dir/sourcemap_cost" bench/sourcemap_cost.c build/libv8walk.a
"$dir/sourcemap_cost" "$dir/app.js.map"
node "$dir/app.js" &
pid=$!
sleep 2
for flag in "" --no-source-maps; do
	/usr/bin/time -f "dump ${flag:-with maps}: %e s, max RSS %M KB" "$V8WALK" --pid $pid --dump $flag \
		>/dev/null 2>"$dir/err" || true
	grep -E "source maps:|dump " "$dir/err" || cat "$dir/err"
done
for round in 1 2 3; do
	for flag in "" --no-source-maps; do
		/usr/bin/time -f "%U %S" -o "$dir/time" "$V8WALK" --pid $pid --rate 499 --duration 5 --raw \
			-o /dev/null $flag 2>"$dir/err" || true
		samples=$(sed -n 's/^v8walk: \([0-9]*\) samples.*/\1/p' "$dir/err")
		echo "profile ${flag:-with maps} (round $round): $samples samples; $(grep -o 'pause median [0-9]* us, p99 [0-9]* us' "$dir/err");" \
			"v8walk CPU $(awk -v n="$samples" '{ printf "%.1f us per sample", ($1 + $2) * 1e6 / n }' "$dir/time")"
	done
done
