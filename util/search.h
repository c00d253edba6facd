/* search.h — binary search in arrays sorted by a u64 key. */
#ifndef V8WALK_SEARCH_H
#define V8WALK_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* How many of the n elements (each `stride` bytes, its key at byte `key_off`) have a key at or
 * below `key`: the index just past the last such element. */
size_t count_keys_at_or_below(const void *base, size_t n, size_t stride, size_t key_off,
			      uint64_t key);

#endif
