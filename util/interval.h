/* interval.h — lookups in arrays of address intervals [start, end) sorted by start and not
 * overlapping (memory mappings, core segments), by binary search on each element's end. */
#ifndef V8WALK_INTERVAL_H
#define V8WALK_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first element whose end (a uint64_t at byte end_off of each stride-byte element)
 * is above addr — the only one that can contain addr — or n. The caller checks its start. */
size_t interval_upper(const void *v, size_t n, size_t stride, size_t end_off, uint64_t addr);

#endif
