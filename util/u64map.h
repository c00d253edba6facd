/* u64map.h — an open-addressing hash map from non-zero u64 keys to u64 values (caches, indexes). */
#ifndef V8WALK_U64MAP_H
#define V8WALK_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key beside its value: a lookup that finds its key has its value in the same cache line
 * (two arrays cost a lookup two misses in the large caches a sample walks). */
struct u64slot {
	uint64_t key; /* 0 = empty */
	uint64_t val;
};

struct u64map {
	struct u64slot *slots;
	size_t cap, len;
	size_t max_len; /* 0 = unbounded; otherwise the map is cleared when it would exceed this */
};

void u64map_init(struct u64map *m, size_t max_len);
void u64map_free(struct u64map *m);
void u64map_clear(struct u64map *m);
bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
void u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* Mixes a 64-bit value (splitmix64 finalizer). */
uint64_t u64_hash(uint64_t x);

#endif
