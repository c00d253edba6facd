/* stable_pool.h — a growable array whose elements never move: storage comes in fixed blocks, so
 * a pointer to an element stays valid while more elements are added (caches whose entries are
 * handed out while other lookups may add entries). */
#ifndef V8WALK_STABLE_POOL_H
#define V8WALK_STABLE_POOL_H

#include <stddef.h>

struct stable_pool {
	void **blocks;
	size_t nblocks;
	size_t n;          /* elements in use: indexes 0 .. n-1 */
	size_t esize;      /* bytes per element */
	size_t per_block;  /* elements per block */
};

void pool_init(struct stable_pool *p, size_t esize, size_t per_block);
void pool_free(struct stable_pool *p);
/* Append a zeroed element; returns its index. */
size_t pool_add(struct stable_pool *p);
static inline void *pool_at(const struct stable_pool *p, size_t i)
{
	return (char *)p->blocks[i / p->per_block] + (i % p->per_block) * p->esize;
}
/* Forget every element (the blocks are kept for reuse). */
static inline void pool_clear(struct stable_pool *p) { p->n = 0; }

#endif
