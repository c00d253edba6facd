/* memsrc.c — generic helpers over a memory source. */
#include "memsrc.h"

void mem_readv(struct memsrc *m, struct mem_range *r, size_t n)
{
	if (m->ops->readv) {
		m->ops->readv(m, r, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ssize_t got = m->ops->read(m, r[i].addr, r[i].buf, r[i].len);
		r[i].got = got > 0 ? (size_t)got : 0;
	}
}
