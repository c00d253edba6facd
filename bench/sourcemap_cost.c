/* sourcemap_cost.c — the CPU cost of one source map, away from any target (bench/sourcemap.sh
 * builds it against build/libv8walk.a): reading and decoding the map file given (ms, and the
 * decoded table's size), then sm_apply on 30 JS frames spread over the map's generated range,
 * as every sample of a mapped script pays it (ns per frame). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../sourcemap/safe_read.h"
#include "../sourcemap/store.h"
#include "../util/clock.h"

static double cpu_s(void)
{
	return (double)own_cpu_ns() / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sourcemap_cost FILE.map\n");
		return 2;
	}
	struct strbuf text;
	sb_init(&text);
	const char *why = "?";
	double t0 = cpu_s();
	if (sm_read_file("", argv[1], SM_MAX_MAP_BYTES, &text, &why) != SR_OK) {
		fprintf(stderr, "sourcemap_cost: %s: %s\n", argv[1], why);
		return 1;
	}
	double t1 = cpu_s();
	struct sourcemap m;
	if (!sourcemap_parse(&m, text.s, text.len, &why)) {
		fprintf(stderr, "sourcemap_cost: %s: %s\n", argv[1], why);
		return 1;
	}
	double t2 = cpu_s();
	printf("map of %.1f MB: read %.1f ms, decoded in %.1f ms CPU into %zu entries, %.1f MB\n",
	       (double)text.len / 1048576.0, (t1 - t0) * 1e3, (t2 - t1) * 1e3, m.n,
	       (double)sourcemap_bytes(&m) / 1048576.0);
	if (!m.n)
		return 0;
	struct intern strings;
	intern_init(&strings);
	intern_str(&strings, "");
	struct script_cache scripts;
	script_cache_init(&scripts, &strings);
	struct sm_store st;
	sm_store_init(&st, &strings, &scripts, NULL, NULL, "");
	const struct sm_entry *last = &m.e[m.n - 1];
	uint32_t lines = last->gen_line + 1, cols = last->gen_col + 1;
	sm_store_put(&st, 0x100, &m, "/bench/app.js.map");
	enum { N = 30, ITERS = 100000 };
	struct frame base[N], f[N];
	uint32_t gen = intern_str(&strings, "/bench/app.js"), name = intern_str(&strings, "f");
	for (int i = 0; i < N; i++) {
		memset(&base[i], 0, sizeof(base[i]));
		base[i].kind = FK_JS;
		base[i].script = 0x100;
		base[i].file = gen;
		base[i].name = name;
		base[i].line = 1 + (int32_t)((uint64_t)(lines - 1) * (uint64_t)i / N);
		base[i].col = 1 + (int32_t)((uint64_t)cols * (uint64_t)(i + 1) / (N + 1));
		base[i].def_line = base[i].line;
		base[i].def_col = base[i].col > 40 ? base[i].col - 40 : 1;
	}
	double t3 = cpu_s();
	for (int k = 0; k < ITERS; k++) {
		memcpy(f, base, sizeof(f));
		sm_apply(&st, f, N);
	}
	double t4 = cpu_s();
	printf("sm_apply: %.0f ns CPU per mapped JS frame (%.1f us per sample of %d JS frames)\n",
	       (t4 - t3) * 1e9 / ITERS / N, (t4 - t3) * 1e6 / ITERS, N);
	sm_store_free(&st);
	script_cache_free(&scripts);
	intern_free(&strings);
	sb_free(&text);
	return 0;
}
