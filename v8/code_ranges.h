/* code_ranges.h — the code cache's slots in the order of their instructions' start, so that the
 * Code holding a pc the cache has not seen yet is found by a binary search among the cached ones,
 * not by a pass over every slot (a pass over 4,096 slots took ~40 µs: measured on a bundled
 * program, 1,100 frames in 10 s were decoded at a new return address of known optimized code).
 * Cached ranges may overlap (an entry whose code has gone, until a check finds it stale): every
 * range that may hold pc is offered, highest start first. */
#ifndef V8WALK_CODE_RANGES_H
#define V8WALK_CODE_RANGES_H

#include <stddef.h>
#include <stdint.h>

struct code_ranges {
	uint64_t *start, *end; /* sorted by start: [start, end) of each entry */
	uint32_t *slot;        /* the cache slot each range is of */
	size_t n, cap;
	uint64_t max_size;     /* the largest range ever held: none older reaches further */
};

void code_ranges_free(struct code_ranges *r);
void code_ranges_insert(struct code_ranges *r, uint64_t start, uint64_t size, uint32_t slot);
/* Forget slot's range, which starts at start (nothing when it is not held). */
void code_ranges_remove(struct code_ranges *r, uint64_t start, uint32_t slot);
/* The ranges that hold pc, highest start first: *it starts at CODE_RANGES_FIRST; returns the next
 * one's slot, or -1 when there is none. */
#define CODE_RANGES_FIRST ((size_t)-1)
long code_ranges_next(const struct code_ranges *r, uint64_t pc, size_t *it);

#endif
