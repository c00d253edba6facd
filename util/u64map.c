/* u64map.c — open-addressing (linear probing) u64 → u64 hash map. */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

uint64_t u64_hash(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void u64map_init(struct u64map *m, size_t max_len)
{
	memset(m, 0, sizeof(*m));
	m->max_len = max_len;
}

void u64map_free(struct u64map *m)
{
	free(m->slots);
	u64map_init(m, m->max_len);
}

void u64map_clear(struct u64map *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->len = 0;
}

static size_t slot_of(const struct u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)u64_hash(key) & mask;
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap || !key)
		return false;
	const struct u64slot *sl = &m->slots[slot_of(m, key)];
	if (sl->key != key)
		return false;
	if (val)
		*val = sl->val;
	return true;
}

static void rehash(struct u64map *m, size_t ncap)
{
	struct u64slot *old = m->slots;
	size_t ocap = m->cap;
	m->slots = xcalloc(ncap, sizeof(*m->slots));
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			m->slots[slot_of(m, old[i].key)] = old[i];
	free(old);
}

/* Grown at half full: a lookup that misses (most of a walk's, in caches of code and memo
 * entries) probes ~2.5 slots at 1/2, ~8.5 at 3/4. */
void u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	if (!key)
		return;
	if (m->max_len && m->len >= m->max_len && !u64map_get(m, key, NULL))
		u64map_clear(m);
	if ((m->len + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 64);
	struct u64slot *sl = &m->slots[slot_of(m, key)];
	if (!sl->key) {
		sl->key = key;
		m->len++;
	}
	sl->val = val;
}
