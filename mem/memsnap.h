/* memsnap.h — a per-sample copy of target memory layered over a memory source: the stack chunk and
 * the heap objects a sample needs are copied once (in batches) while the thread is stopped; later
 * reads of those bytes are served locally. Misses go to the backing source and are kept. */
#ifndef V8WALK_MEMSNAP_H
#define V8WALK_MEMSNAP_H

#include <stdint.h>

#include "memsrc.h"

enum { MEMSNAP_BAD_PAGES = 16 };

struct snap_range {
	uint64_t addr;
	size_t len;
	size_t off; /* into data */
};

struct memsnap {
	struct memsrc base;
	struct memsrc *backing;
	struct snap_range *ranges; /* in the order they were copied */
	size_t nranges, cap;
	uint32_t *by_addr;         /* ranges of at most a few pages, sorted by address */
	size_t nsmall, cap_small;
	uint32_t *large;           /* the larger ones */
	size_t nlarge, cap_large;
	uint8_t *data;
	size_t used, data_cap;
	size_t budget;       /* max bytes kept (reads past it are passed through uncached) */
	size_t last_hit;     /* index of the range that served the previous read */
	unsigned long misses; /* reads that went to the backing source */
	/* from memsnap_mark_late on: reads served by what was copied after the mark (or passed
	 * through), which a copy taken before it does not vouch for */
	size_t late_from;    /* index of the first range copied after the mark (SIZE_MAX: none) */
	unsigned long late_reads;
	/* pages a read found unreadable in this snapshot (a slot value that only looks like a
	 * pointer): later reads inside them fail at once instead of asking the target again */
	uint64_t bad_pages[MEMSNAP_BAD_PAGES];
	size_t nbad;       /* pages noted (the newest MEMSNAP_BAD_PAGES are kept) */
};

void memsnap_init(struct memsnap *s, struct memsrc *backing, size_t budget);
void memsnap_free(struct memsnap *s);
void memsnap_reset(struct memsnap *s);
/* What is copied from now on is late: every later read it serves (and every read that goes to the
 * backing source) counts in late_reads. */
void memsnap_mark_late(struct memsnap *s);
/* Copy [addr, addr+len) from the backing source; returns the number of bytes copied. */
size_t memsnap_add(struct memsnap *s, uint64_t addr, size_t len);
/* Copy several ranges with one batched read (ranges already held are skipped); returns how many
 * were copied in full. */
size_t memsnap_prefetch(struct memsnap *s, const uint64_t *addrs, const uint32_t *lens, size_t n);
/* Keep an existing buffer's contents as a range (e.g. stack words captured by the kernel). */
void memsnap_put(struct memsnap *s, uint64_t addr, const void *buf, size_t len);
/* The same for a range whose bytes are in two pieces (a record that wrapped around its ring's
 * end): [addr, addr + alen + blen) from a then b, one range. */
void memsnap_put2(struct memsnap *s, uint64_t addr, const void *a, size_t alen, const void *b, size_t blen);
/* Is [addr, addr+len) held locally? */
const void *memsnap_find(struct memsnap *s, uint64_t addr, size_t len);

#endif
