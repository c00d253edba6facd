/* heap_pages.h — V8's heap pages, found from outside without any Isolate or Heap offsets. Every
 * data page (old, young, large-object; not read-only, not code) is reserved through V8's static
 * default page allocator, and the reservation {allocator, address, size} is kept in the page's
 * header (V8 <= 12) or in the metadata the header points to (V8 >= 13): a 256 KiB-aligned
 * address whose reservation names that allocator and the address itself is a page. The
 * allocator's address comes from its symbol, or, in a stripped binary, from the pages
 * themselves: the one value that many aligned addresses' reservations hold together with their
 * own address. The header gives the page's object area, its flags (the young generation's
 * inactive half is skipped: it holds stale copies) and its heap (one per isolate). */
#ifndef V8WALK_HEAP_PAGES_H
#define V8WALK_HEAP_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../symtab/addrspace.h"
#include "heap.h"

enum { HEAP_PAGE_HEADER = 128 }; /* bytes of a header (or metadata) read */

struct heap_page {
	uint64_t addr;                  /* the page (256 KiB-aligned) */
	uint64_t area_start, area_end;  /* its objects */
	uint64_t flags;
	uint64_t heap;                  /* its Heap (an isolate's) */
};

/* The metadata pointer in a header (V8 >= 13; 0 when the layout keeps everything in the header). */
uint64_t heap_page_metadata_ptr(const struct v8_layout *L, const uint8_t *hdr);
/* The allocator a page at A names (0: not a page: its reservation does not name A itself). hdr is
 * the header at A, meta the metadata (V8 >= 13; else NULL). */
uint64_t heap_page_allocator(const struct v8_layout *L, uint64_t A, const uint8_t *hdr, const uint8_t *meta);
/* Decode a page at A whose reservation names `allocator`; false when it is not one (or its area
 * is not inside [A, A + max_span)). */
bool heap_page_decode(const struct v8_layout *L, uint64_t A, const uint8_t *hdr, const uint8_t *meta,
		      uint64_t allocator, uint64_t max_span, struct heap_page *p);
/* Is it the young generation's inactive half (stale copies)? */
bool heap_page_is_from_space(const struct v8_layout *L, const struct heap_page *p);

/* The runtime address of V8's default page allocator, from the V8 module's symbol (0: none). */
uint64_t heap_pages_allocator_symbol(struct addrspace *as, size_t v8_module);

struct heap_page_list {
	struct heap_page *v;
	size_t n, cap;
	uint64_t allocator;
	const char *allocator_how; /* "symbol", "the pages' own reservations" */
	size_t aligned_tried;      /* aligned addresses looked at */
	bool capped;               /* more pages than the limit: the rest were not looked at */
};

/* Every page in the anonymous writable mappings of `as`, read through h (allocator 0: found by
 * the pages' vote). At most max_pages. */
void heap_pages_find(const struct v8_heap *h, const struct addrspace *as, uint64_t allocator,
		     size_t max_pages, struct heap_page_list *out);
void heap_page_list_free(struct heap_page_list *l);

#endif
