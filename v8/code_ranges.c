/* code_ranges.c — cached code ranges sorted by start (code_ranges.h). */
#include "code_ranges.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void code_ranges_free(struct code_ranges *r)
{
	free(r->start);
	free(r->end);
	free(r->slot);
	memset(r, 0, sizeof(*r));
}

/* The first position whose start is above `start`. */
static size_t upper_bound(const struct code_ranges *r, uint64_t start)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->start[mid] <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void code_ranges_insert(struct code_ranges *r, uint64_t start, uint64_t size, uint32_t slot)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->start = xrealloc(r->start, r->cap * sizeof(*r->start));
		r->end = xrealloc(r->end, r->cap * sizeof(*r->end));
		r->slot = xrealloc(r->slot, r->cap * sizeof(*r->slot));
	}
	size_t at = upper_bound(r, start), tail = r->n - at;
	memmove(r->start + at + 1, r->start + at, tail * sizeof(*r->start));
	memmove(r->end + at + 1, r->end + at, tail * sizeof(*r->end));
	memmove(r->slot + at + 1, r->slot + at, tail * sizeof(*r->slot));
	r->start[at] = start;
	r->end[at] = start + size < start ? UINT64_MAX : start + size;
	r->slot[at] = slot;
	r->n++;
	if (size > r->max_size)
		r->max_size = size;
}

void code_ranges_remove(struct code_ranges *r, uint64_t start, uint32_t slot)
{
	for (size_t i = upper_bound(r, start); i-- > 0 && r->start[i] == start;) {
		if (r->slot[i] != slot)
			continue;
		size_t tail = r->n - i - 1;
		memmove(r->start + i, r->start + i + 1, tail * sizeof(*r->start));
		memmove(r->end + i, r->end + i + 1, tail * sizeof(*r->end));
		memmove(r->slot + i, r->slot + i + 1, tail * sizeof(*r->slot));
		r->n--;
		return;
	}
}

long code_ranges_next(const struct code_ranges *r, uint64_t pc, size_t *it)
{
	size_t i = *it == CODE_RANGES_FIRST ? upper_bound(r, pc) : *it;
	while (i-- > 0 && pc - r->start[i] < r->max_size) {
		if (pc < r->end[i]) {
			*it = i;
			return (long)r->slot[i];
		}
	}
	*it = 0;
	return -1;
}
