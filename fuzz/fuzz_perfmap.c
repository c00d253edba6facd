/* fuzz_perfmap.c — libFuzzer harness: perf map text (symtab/perfmap.c): `START SIZE name` lines
 * parsed in two chunks (as a growing file is read), then lookups at, inside and past each entry. */
#include <string.h>

#include "../symtab/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct intern strings;
	struct perfmap pm;
	intern_init(&strings);
	perfmap_init_path(&pm, "", 0, &strings); /* no file: the text below is all there is */
	const char *text = (const char *)data;
	size_t half = size / 2;
	size_t used = perfmap_parse(&pm, text, half);
	perfmap_parse(&pm, text + used, size - used);
	for (size_t i = 0; i < pm.n && i < 4096; i++) {
		struct perfmap_entry e = pm.v[i];
		perfmap_lookup(&pm, e.start);
		perfmap_lookup(&pm, e.end - 1);
		perfmap_lookup(&pm, e.end);
	}
	perfmap_lookup(&pm, 0);
	perfmap_lookup(&pm, UINT64_MAX);
	perfmap_free(&pm);
	intern_free(&strings);
	return 0;
}
