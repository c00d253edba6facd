/* search.c — binary search in arrays sorted by a u64 key. */
#include "search.h"

#include <string.h>

size_t count_keys_at_or_below(const void *base, size_t n, size_t stride, size_t key_off,
			      uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, p + mid * stride + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
