/* pending_scan.h — every suspended async function and async generator of a process, with the
 * chain of async functions awaiting each (what every request is waiting on). The heap's pages
 * are found by their reservation (v8/heap_pages.h) and read one at a time into a buffer the scan
 * looks at (v8/heap_scan.h); each object found is checked again (its map word, a suspended
 * continuation, a JSFunction and a Context) and its chain followed (v8/async_chain.h).
 *
 * A live process is not stopped: the pages are read while it runs. A scavenge during the scan can
 * move young objects past it, so the pages' flags are read again afterwards and the scan is
 * repeated (up to three times) when the young generation flipped. Each object's check and chain
 * are read once more after they were followed (their trail): what changed meanwhile is dropped
 * and counted. A core is read as it is. Dead objects that died suspended (an await abandoned with
 * its promise) may still be found where V8 has not reused their memory. */
#ifndef V8WALK_PENDING_SCAN_H
#define V8WALK_PENDING_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "../symtab/addrspace.h"
#include "../v8/async_chain.h"
#include "../v8/builtin_ids.h"
#include "../v8/heap.h"
#include "../v8/runtime.h"

struct pending_fn {
	uint64_t generator;
	uint64_t heap;            /* its page's heap (one per isolate) */
	size_t chain_at, chain_n; /* its own frame, then those awaiting it, in frames[] */
	bool awaited;             /* another function's chain holds it: not the innermost */
	enum async_end end;       /* why its chain ended */
};

struct pending_limits {
	size_t max_pages;       /* pages looked at */
	size_t max_candidates;  /* generator-shaped words kept until their maps are known */
	size_t max_functions;   /* suspended functions reported */
	int max_chain;          /* frames per chain */
	size_t max_frames;      /* frames of all chains together */
	uint64_t budget_ns;     /* time for the whole scan (0: none) */
};

struct pending_result {
	struct pending_fn *v;
	size_t n, cap;
	struct async_frame *frames;
	size_t nframes, capframes;
	/* what was read */
	size_t aligned, pages, from_pages, large_pages, heaps, meta_maps, maps, async_maps;
	uint64_t bytes;
	const char *allocator_how;
	/* what was found and left out */
	size_t candidates;  /* words with an async map */
	size_t not_objects; /* of those, not an async function or generator on a check */
	size_t running;     /* running or closed, not suspended */
	size_t changed;     /* (live) changed between the check and its second reading */
	size_t moved;       /* (live) moved by a GC while it was read */
	size_t retries;     /* scans repeated after a scavenge */
	bool capped;        /* a limit was reached: the result is partial */
	uint64_t pages_ns, scan_ns, walk_ns; /* finding the pages, reading and scanning them, chains */
};

/* Scan the heap of a process whose memory h reads (a live process's own memory source, or a
 * core's); `live` (NULL for a core) is where objects are read again. False (with the reason in
 * *why) when no page could be found. */
bool pending_scan(const struct v8_heap *h, struct memsrc *live, struct addrspace *as,
		  const struct v8_runtime *rt, const struct builtin_ids *ids, const struct pending_limits *lim,
		  struct pending_result *r, const char **why);
void pending_result_free(struct pending_result *r);

#endif
