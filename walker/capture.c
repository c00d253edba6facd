/* capture.c — the pool of per-stop copies waiting to be decoded. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void capture_pool_init(struct capture_pool *p, struct memsrc *backing, size_t snap_budget)
{
	memset(p, 0, sizeof(*p));
	p->backing = backing;
	p->snap_budget = snap_budget;
}

void capture_pool_free(struct capture_pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		memsnap_free(&p->v[i]->snap);
		free(p->v[i]->stack_buf);
		free(p->v[i]);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

struct capture *capture_pool_take(struct capture_pool *p, size_t max)
{
	if (p->used >= max)
		return NULL;
	if (p->used == p->n) {
		XGROW(p->v, p->cap, p->n + 1);
		struct capture *c = xcalloc(1, sizeof(*c));
		memsnap_init(&c->snap, p->backing, p->snap_budget);
		p->v[p->n++] = c;
	}
	struct capture *c = p->v[p->used++];
	memsnap_reset(&c->snap);
	memset(&c->ws, 0, sizeof(c->ws));
	c->held_ns = 0;
	c->stack_got = 0;
	c->lent = false;
	return c;
}

void capture_pool_release(struct capture_pool *p)
{
	p->used = 0;
}
