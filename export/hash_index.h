/* hash_index.h — a map from any 64-bit stack hash (0 included, which util/u64map.h cannot hold
 * as a key) to a 64-bit value: the stacks of a period, the stacks sent, report's counts. */
#ifndef V8WALK_HASH_INDEX_H
#define V8WALK_HASH_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/u64map.h"

struct hash_index {
	struct u64map map; /* non-zero hashes */
	bool has_zero;
	uint64_t zero_val;
};

static inline void hash_index_init(struct hash_index *h, size_t max_len)
{
	u64map_init(&h->map, max_len);
	h->has_zero = false;
	h->zero_val = 0;
}
static inline void hash_index_free(struct hash_index *h)
{
	u64map_free(&h->map);
}
static inline bool hash_index_get(const struct hash_index *h, uint64_t hash, uint64_t *val)
{
	if (hash)
		return u64map_get(&h->map, hash, val);
	*val = h->zero_val;
	return h->has_zero;
}
static inline void hash_index_put(struct hash_index *h, uint64_t hash, uint64_t val)
{
	if (hash) {
		u64map_put(&h->map, hash, val);
	} else {
		h->has_zero = true;
		h->zero_val = val;
	}
}

#endif
