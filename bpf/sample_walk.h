/* sample_walk.h — one eBPF sample record → mixed frames, through the same stack walker as ptrace
 * mode (walker/stackwalk.c). The captured registers become a regset; the captured stack ranges
 * are kept in a memsnap. Below it, a fence refuses every other address of the sampled thread's
 * stack: that memory has changed since the sample, and reading it would invent frames (the walk
 * stops there and the stack is marked truncated instead). Everything else — V8 heap objects —
 * is read from the live process with process_vm_readv, after the sample: if the GC moved or
 * freed an object in between, that frame cannot be named (the decoder checks every object it
 * reads, so it is shown as unknown rather than wrong). */
#ifndef V8WALK_SAMPLE_WALK_H
#define V8WALK_SAMPLE_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../walker/maps_refresh.h"
#include "../mem/memsnap.h"
#include "../mem/memsrc_fence.h"
#include "../mem/memsrc_live.h"
#include "../walker/stackwalk.h"
#include "sample_record.h"

struct sample_walker {
	struct stackwalk *sw;
	struct addrspace *as;
	struct memsrc_live live;
	struct memsrc_fence fence;
	struct memsnap snap;
	struct maps_refresh maps_fresh;
	uint64_t pac_mask; /* of the target's return addresses (mem/regs.h) */
};

void sample_walker_init(struct sample_walker *w, struct stackwalk *sw, struct addrspace *as,
			pid_t pid);
void sample_walker_free(struct sample_walker *w);
/* Stage 1 of the walk (stage 2 is stackwalk_name_natives); frames innermost first. Returns the
 * number of frames, or -1 when the record is malformed. */
int sample_walk(struct sample_walker *w, const struct v8w_record *rec, const uint8_t *mem,
		size_t mem_len, struct frame *out, int max, struct walk_stats *st);
/* The ranges of a record, in order: returns false when mem is malformed. */
typedef void (*sample_range_fn)(void *ctx, const struct v8w_range *r, const uint8_t *bytes);
bool sample_ranges(const uint8_t *mem, size_t mem_len, sample_range_fn fn, void *ctx);

#endif
