/* perf_ring.h — a perf event's ring buffer mapped read-only, as the kernel writes a backward
 * ring over its oldest records (no data_tail to move): where its data lies, and its newest
 * record's position (data_head). The stack copy's rings (switch_copy.c) and the run-state rings
 * (run_ring.c) are both mapped so. */
#ifndef V8WALK_PERF_RING_H
#define V8WALK_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	void *map; /* NULL: not mapped */
	size_t map_len;
	const struct perf_event_mmap_page *meta;
	const uint8_t *data;
	uint64_t data_size;
};

/* Map fd's control page and data_pages pages (a power of two) read-only: 0, or -errno (r is
 * then left unmapped; fd stays the caller's to close). */
int perf_ring_map(struct perf_ring *r, int fd, size_t data_pages, size_t page_size);
void perf_ring_unmap(struct perf_ring *r);

static inline uint64_t perf_ring_head(const struct perf_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

#endif
