/* fuzz_maps.c — libFuzzer harness: /proc/PID/maps text (symtab/maps.c) parsed into mappings,
 * then lookups at each mapping's edges, also with the previous mapping as a hint (whatever it
 * returns must hold the address). */
#include <stdlib.h>
#include <string.h>

#include "../symtab/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1); /* the reader hands the parser NUL-terminated text */
	memcpy(text, data, size);
	text[size] = 0;
	struct maps m;
	maps_init(&m);
	maps_parse(text, &m);
	for (size_t i = 0; i < m.n; i++) {
		maps_find(&m, m.v[i].start);
		maps_find(&m, m.v[i].end - 1);
		maps_find(&m, m.v[i].end);
		const uint64_t probes[] = {m.v[i].start, m.v[i].end - 1, m.v[i].end};
		for (int k = 0; k < 3; k++) {
			const struct mapping *f = maps_find_near(&m, i ? &m.v[i - 1] : NULL, probes[k]);
			if (f && (probes[k] < f->start || probes[k] >= f->end))
				abort();
		}
	}
	maps_free(&m);
	free(text);
	return 0;
}
