/* memsrc_fence.h — a memory source that refuses one address range and passes every other read
 * to a backing source. The eBPF sampler puts it around the sampled thread's stack: the stack
 * bytes the kernel captured at the sample are served by a memsnap above it, and a read of any
 * other stack address fails instead of returning what the stack holds later (which would
 * invent frames). Heap reads pass through to the live process. */
#ifndef V8WALK_MEMSRC_FENCE_H
#define V8WALK_MEMSRC_FENCE_H

#include "memsrc.h"

struct memsrc_fence {
	struct memsrc base;
	struct memsrc *backing;
	uint64_t lo, hi;        /* refused: [lo, hi) */
	unsigned long refused;  /* reads refused (for statistics) */
};

void memsrc_fence_init(struct memsrc_fence *f, struct memsrc *backing);
void memsrc_fence_set(struct memsrc_fence *f, uint64_t lo, uint64_t hi);

#endif
