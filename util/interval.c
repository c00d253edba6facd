/* interval.c — binary search over sorted, disjoint address intervals. */
#include "interval.h"

#include <string.h>

static uint64_t end_of(const void *v, size_t i, size_t stride, size_t end_off)
{
	uint64_t end;
	memcpy(&end, (const char *)v + i * stride + end_off, sizeof(end));
	return end;
}

size_t interval_upper(const void *v, size_t n, size_t stride, size_t end_off, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (end_of(v, mid, stride, end_off) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
