/* memsrc.h — the memory-source seam: everything above it (unwinder, V8 decoder) reads target memory
 * only through this interface; live processes, core files and bpf events implement it. */
#ifndef V8WALK_MEMSRC_H
#define V8WALK_MEMSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mem_range {
	uint64_t addr;
	void *buf;
	size_t len;
	size_t got; /* filled by readv: bytes actually read */
};

struct memsrc;

struct memsrc_ops {
	/* Read up to len bytes at addr into buf; returns the number of bytes read (short at the end of a
	 * mapping), or -1 when nothing could be read. */
	ssize_t (*read)(struct memsrc *m, uint64_t addr, void *buf, size_t len);
	/* Optional batch read (one syscall for a live target); sets each range's `got`. */
	void (*readv)(struct memsrc *m, struct mem_range *r, size_t n);
	/* Optional hint: these ranges will be read soon; a caching source copies them in one batch. */
	void (*prefetch)(struct memsrc *m, const uint64_t *addrs, const uint32_t *lens, size_t n);
};

struct memsrc {
	const struct memsrc_ops *ops;
};

static inline ssize_t mem_read_some(struct memsrc *m, uint64_t addr, void *buf, size_t len)
{
	return m->ops->read(m, addr, buf, len);
}

/* True only when all len bytes were read. */
static inline bool mem_read(struct memsrc *m, uint64_t addr, void *buf, size_t len)
{
	return len == 0 || m->ops->read(m, addr, buf, len) == (ssize_t)len;
}

static inline bool mem_read_u64(struct memsrc *m, uint64_t addr, uint64_t *v)
{
	return mem_read(m, addr, v, sizeof(*v));
}

void mem_readv(struct memsrc *m, struct mem_range *r, size_t n);

static inline void mem_prefetch(struct memsrc *m, const uint64_t *addrs, const uint32_t *lens,
				size_t n)
{
	if (m->ops->prefetch && n)
		m->ops->prefetch(m, addrs, lens, n);
}

#endif
