/* intern.c — interning of counted byte strings (they may hold NUL) with an open-addressing table
 * of ids. */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

uint64_t bytes_hash(const void *p, size_t n)
{
	/* FNV-1a, 64-bit */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void intern_init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
}

void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	intern_init(t);
}

static void rehash(struct intern *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 256;
	free(t->slots);
	t->slots = xcalloc(ns, sizeof(*t->slots));
	t->nslots = ns;
	for (size_t id = 0; id < t->n; id++) {
		size_t i = bytes_hash(t->strs[id], t->lens[id]) & (ns - 1);
		while (t->slots[i])
			i = (i + 1) & (ns - 1);
		t->slots[i] = (uint32_t)id + 1;
	}
}

uint32_t intern_n(struct intern *t, const char *s, size_t len)
{
	if ((t->n + 1) * 2 > t->nslots)
		rehash(t);
	size_t mask = t->nslots - 1;
	size_t i = bytes_hash(s, len) & mask;
	while (t->slots[i]) {
		size_t id = t->slots[i] - 1;
		if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
			return (uint32_t)id;
		i = (i + 1) & mask;
	}
	size_t cap = t->cap;
	size_t cost = len + INTERN_ENTRY_OVERHEAD;
	if (t->max_bytes && t->bytes + cost > t->max_bytes) {
		t->refused++;
		return t->overflow_id;
	}
	t->bytes += cost;
	XGROW(t->strs, t->cap, t->n + 1);
	XGROW(t->lens, cap, t->n + 1);
	char *copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = 0;
	t->strs[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[i] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

uint32_t intern_str(struct intern *t, const char *s)
{
	return intern_n(t, s, strlen(s));
}

void intern_set_budget(struct intern *t, size_t max_bytes, const char *overflow_name)
{
	t->max_bytes = 0;
	intern_str(t, ""); /* id 0 stays "" (callers read id 0 as "no name") */
	t->overflow_id = intern_str(t, overflow_name);
	t->max_bytes = max_bytes;
}
