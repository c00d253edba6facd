/* heap_scan.h — async function and async generator objects found in copies of heap pages. Every
 * object shaped like a JSGeneratorObject (a map pointer, elements, function, context and register
 * file pointers, a Smi resume mode of 0-2 and a Smi continuation) is a candidate, kept with its map
 * word; once every page was seen, the caller reads which of those few distinct map words are Maps
 * of JS_ASYNC_FUNCTION_OBJECT_TYPE (one per native context) or JS_ASYNC_GENERATOR_OBJECT_TYPE (one
 * per async generator function) — heap_scan_maps lists them, heap_scan_keep_maps takes the answer
 * — and the candidates of those maps are the objects. At most max_candidates are kept; beyond, a
 * second pass keeps only the objects of the maps known by then. Works on buffers only: the caller
 * reads the pages, this decides. */
#ifndef V8WALK_HEAP_SCAN_H
#define V8WALK_HEAP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "layout.h"

struct heap_scan {
	const struct v8_layout *L;
	struct heap_object_candidate {
		uint64_t addr; /* untagged */
		uint64_t map;  /* its map word */
	} *cand;
	size_t ncand, capcand, max_candidates;
	bool cand_overflow;   /* candidates beyond max_candidates were not kept */
	struct u64map maps;   /* the candidates' distinct map words (→ 1) */
	bool maps_overflow;   /* more distinct map words than the map holds */
	struct u64map known;  /* the async objects' maps (→ 1) */
	bool maps_known;      /* second pass: only objects of a known map are kept */
	unsigned long bytes;  /* scanned */
};

void heap_scan_init(struct heap_scan *s, const struct v8_layout *L, size_t max_candidates);
void heap_scan_free(struct heap_scan *s);
/* The copy of [addr, addr + len) of a page's object area (8-byte aligned). */
void heap_scan_buffer(struct heap_scan *s, uint64_t addr, const uint8_t *buf, size_t len);
/* The candidates' distinct map words (at most max into out). */
size_t heap_scan_maps(const struct heap_scan *s, uint64_t *out, size_t max);
/* Which of them are the maps of async functions and generators. */
void heap_scan_keep_maps(struct heap_scan *s, const uint64_t *maps, size_t n);
/* The candidates of a kept map (their addresses, untagged, into out; at most max). */
size_t heap_scan_objects(const struct heap_scan *s, uint64_t *out, size_t max);
/* Forget the candidates for a second pass that keeps only objects of the kept maps. */
void heap_scan_restart_known(struct heap_scan *s);

#endif
