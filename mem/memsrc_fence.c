/* memsrc_fence.c — a memory source with one forbidden range. */
#include "memsrc_fence.h"

#include <stdbool.h>

static bool refused(const struct memsrc_fence *f, uint64_t addr, size_t len)
{
	uint64_t end = addr + len;
	return end < addr || (addr < f->hi && end > f->lo);
}

static ssize_t fence_read(struct memsrc *base, uint64_t addr, void *buf, size_t len)
{
	struct memsrc_fence *f = (struct memsrc_fence *)base;
	if (refused(f, addr, len)) {
		f->refused++;
		return -1;
	}
	return mem_read_some(f->backing, addr, buf, len);
}

/* A batch that stays clear of the fence goes to the backing source as one batch. */
static void fence_readv(struct memsrc *base, struct mem_range *r, size_t n)
{
	struct memsrc_fence *f = (struct memsrc_fence *)base;
	for (size_t i = 0; i < n; i++) {
		if (refused(f, r[i].addr, r[i].len)) {
			for (size_t k = 0; k < n; k++) {
				ssize_t got = fence_read(base, r[k].addr, r[k].buf, r[k].len);
				r[k].got = got > 0 ? (size_t)got : 0;
			}
			return;
		}
	}
	mem_readv(f->backing, r, n);
}

static const struct memsrc_ops fence_ops = {.read = fence_read, .readv = fence_readv};

void memsrc_fence_init(struct memsrc_fence *f, struct memsrc *backing)
{
	f->base.ops = &fence_ops;
	f->backing = backing;
	f->lo = f->hi = 0;
	f->refused = 0;
}

void memsrc_fence_set(struct memsrc_fence *f, uint64_t lo, uint64_t hi)
{
	f->lo = lo;
	f->hi = hi;
}
