/* stack_hash.c — FNV-1a 64 (stack_hash.h). */
#include "stack_hash.h"

uint64_t fnv1a64_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= FNV1A64_PRIME;
	}
	return h;
}
