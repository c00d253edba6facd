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
	free(m->keys);
	free(m->vals);
	u64map_init(m, m->max_len);
}

void u64map_clear(struct u64map *m)
{
	if (m->keys)
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->len = 0;
}

static size_t slot_of(const struct u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)u64_hash(key) & mask;
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap || !key)
		return false;
	size_t i = slot_of(m, key);
	if (m->keys[i] != key)
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

static void rehash(struct u64map *m, size_t ncap)
{
	uint64_t *ok = m->keys, *ov = m->vals;
	size_t ocap = m->cap;
	m->keys = xcalloc(ncap, sizeof(*m->keys));
	m->vals = xcalloc(ncap, sizeof(*m->vals));
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (ok[i]) {
			size_t j = slot_of(m, ok[i]);
			m->keys[j] = ok[i];
			m->vals[j] = ov[i];
		}
	}
	free(ok);
	free(ov);
}

void u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	if (!key)
		return;
	if (m->max_len && m->len >= m->max_len && !u64map_get(m, key, NULL))
		u64map_clear(m);
	if ((m->len + 1) * 4 > m->cap * 3)
		rehash(m, m->cap ? m->cap * 2 : 64);
	size_t i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->len++;
	}
	m->vals[i] = val;
}
