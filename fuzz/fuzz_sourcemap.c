/* fuzz_sourcemap.c — libFuzzer harness for the source map decoders: the input is tried as a map
 * (JSON, VLQ mappings, index maps: sourcemap/sourcemap.h), then every lookup a frame could make is
 * done on what was decoded; the same bytes are also searched for a sourceMappingURL comment, whose
 * URL is resolved and, when it is a data: URL, decoded and parsed in turn.
 *
 * Build and run (standalone; the fuzz/ make rules can take the same line):
 *   clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -o build/fuzz_sourcemap \
 *     fuzz/fuzz_sourcemap.c sourcemap/json.c sourcemap/vlq.c sourcemap/sourcemap.c \
 *     sourcemap/locate.c sourcemap/data_url.c util/strbuf.c util/xalloc.c
 *   build/fuzz_sourcemap -max_len=1048576 -timeout=10 CORPUS_DIR
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../sourcemap/data_url.h"
#include "../sourcemap/locate.h"
#include "../sourcemap/sourcemap.h"

static void parse_and_query(const char *buf, size_t len)
{
	struct sourcemap m;
	const char *why = NULL;
	if (!sourcemap_parse(&m, buf, len, &why))
		return;
	for (size_t i = 0; i < m.n; i++) {
		const struct sm_entry *e = sourcemap_find(&m, m.e[i].gen_line, m.e[i].gen_col);
		if (!e || (e->src != SM_NONE && !sm_string(&m.sources, e->src)) ||
		    (e->name != SM_NONE && !sm_string(&m.names, e->name)))
			__builtin_trap(); /* an entry's indices are always valid */
	}
	sourcemap_find(&m, 0, 0);
	sourcemap_find(&m, UINT32_MAX, UINT32_MAX);
	struct strbuf b;
	sb_init(&b);
	for (uint32_t i = 0; i < m.sources.n && i < 64; i++)
		sm_resolve_source("/srv/dist/app.js.map", sm_string(&m.sources, i), &b);
	sb_free(&b);
	sourcemap_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	parse_and_query(buf, size);
	const char *url;
	size_t ulen;
	if (sm_find_comment(buf, size, &url, &ulen)) {
		struct strbuf path, json;
		sb_init(&path);
		sb_init(&json);
		const char *why = NULL;
		if (sm_resolve_map_url("/srv/dist/app.js", url, ulen, &path, &why) == SM_AT_INLINE &&
		    data_url_decode(url, ulen, 1 << 20, &json, &why))
			parse_and_query(json.s ? json.s : "", json.len);
		sb_free(&path);
		sb_free(&json);
	}
	return 0;
}
