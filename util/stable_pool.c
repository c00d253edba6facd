/* stable_pool.c — block storage for elements that must not move. */
#include "stable_pool.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void pool_init(struct stable_pool *p, size_t esize, size_t per_block)
{
	memset(p, 0, sizeof(*p));
	p->esize = esize;
	p->per_block = per_block;
}

void pool_free(struct stable_pool *p)
{
	for (size_t i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	pool_init(p, p->esize, p->per_block);
}

size_t pool_add(struct stable_pool *p)
{
	if (p->n == p->nblocks * p->per_block) {
		p->blocks = xrealloc(p->blocks, (p->nblocks + 1) * sizeof(*p->blocks));
		p->blocks[p->nblocks++] = xmalloc(p->per_block * p->esize);
	}
	size_t i = p->n++;
	memset(pool_at(p, i), 0, p->esize);
	return i;
}
