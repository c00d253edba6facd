/* kallsyms.c — loading and searching /proc/kallsyms. */
#include "kallsyms.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/interval.h"
#include "../util/xalloc.h"

enum { MAX_FUNCTION_SIZE = 1 << 20 };

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

bool kallsyms_load(struct kallsyms *k, const char *path)
{
	memset(k, 0, sizeof(*k));
	sb_init(&k->names);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, name[256];
		/* "ffffffff81000000 T _stext" or "… t name\t[module]" */
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 || addr == 0)
			continue;
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		XGROW(k->v, k->cap, k->n + 1);
		k->v[k->n++] = (struct ksym){.addr = addr, .name_off = (uint32_t)k->names.len};
		sb_add(&k->names, name);
		sb_addc(&k->names, '\0');
	}
	fclose(f);
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return k->n > 0;
}

void kallsyms_free(struct kallsyms *k)
{
	free(k->v);
	sb_free(&k->names);
	memset(k, 0, sizeof(*k));
}

const char *kallsyms_name(const struct kallsyms *k, uint64_t addr)
{
	/* the symbols starting at or below addr: the first index whose start is above it */
	size_t lo = interval_upper(k->v, k->n, sizeof(*k->v), offsetof(struct ksym, addr), addr);
	/* no kernel function is this long: past it the address is in no known text */
	if (!lo || addr - k->v[lo - 1].addr > MAX_FUNCTION_SIZE)
		return NULL;
	return k->names.s + k->v[lo - 1].name_off;
}
