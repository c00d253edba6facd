/* heap_scan.h — async function and async generator objects found in copies of heap pages by
 * their map. A meta map is the one object whose map word is itself; a Map is an object whose map
 * word is a meta map (its instance type is in the same copy); the maps kept are those of
 * JS_ASYNC_FUNCTION_OBJECT_TYPE (one per native context) and JS_ASYNC_GENERATOR_OBJECT_TYPE (one
 * per async generator function). An object is a word equal to one of those maps, at the start of
 * something shaped like a generator (function and context pointers, a Smi continuation). Maps may
 * lie in pages scanned after their objects: candidates of the generator's shape are kept until
 * every page was seen, at most max_candidates (beyond: a second pass with the maps known). Works
 * on buffers only: the caller reads pages, this decides. */
#ifndef V8WALK_HEAP_SCAN_H
#define V8WALK_HEAP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "layout.h"

enum { HEAP_SCAN_META_MAX = 8 };

struct heap_scan {
	const struct v8_layout *L;
	uint64_t meta[HEAP_SCAN_META_MAX]; /* tagged meta maps */
	size_t nmeta;
	bool meta_grew;       /* a meta map first seen inside a page (maps before it may be missed) */
	bool meta_overflow;   /* more meta maps than fit (ignored beyond) */
	struct u64map maps;   /* tagged map → its instance type + 1 */
	size_t nmaps;         /* maps seen (any type) */
	bool maps_known;      /* second pass: objects only where their map is already known */
	struct heap_object_candidate {
		uint64_t addr; /* untagged */
		uint64_t map;  /* its map word */
	} *cand;
	size_t ncand, capcand, max_candidates;
	bool cand_overflow;   /* candidates beyond max_candidates were not kept */
	unsigned long bytes;  /* scanned */
};

void heap_scan_init(struct heap_scan *s, const struct v8_layout *L, size_t max_candidates);
void heap_scan_free(struct heap_scan *s);
/* A meta map known before the pages are scanned (the map of a map). */
void heap_scan_add_meta(struct heap_scan *s, uint64_t meta);
/* The copy of [addr, addr + len) of a page's object area (8-byte aligned). */
void heap_scan_buffer(struct heap_scan *s, uint64_t addr, const uint8_t *buf, size_t len);
/* After every page: the candidates whose map is an async function's or generator's (their
 * addresses, untagged, into out; at most max). */
size_t heap_scan_objects(const struct heap_scan *s, uint64_t *out, size_t max);
/* Forget the candidates for a second pass that keeps only objects of known maps. */
void heap_scan_restart_known(struct heap_scan *s);

#endif
