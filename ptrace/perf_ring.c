/* perf_ring.c — mapping a perf event's ring read-only (perf_ring.h). */
#include "perf_ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

int perf_ring_map(struct perf_ring *r, int fd, size_t data_pages, size_t page_size)
{
	memset(r, 0, sizeof(*r));
	size_t len = (1 + data_pages) * page_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	const struct perf_event_mmap_page *meta = map;
	uint64_t off = meta->data_offset, size = meta->data_size;
	if (!off || !size || off + size > len) { /* kernels before 4.1: data follows the first page */
		off = page_size;
		size = len - page_size;
	}
	*r = (struct perf_ring){.map = map, .map_len = len, .meta = meta, .data = (const uint8_t *)map + off,
				.data_size = size};
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}
