/* sample_walk.c — walking an eBPF sample with the shared walker. */
#include "sample_walk.h"

#include <string.h>

enum {
	SNAPSHOT_BUDGET = 8 << 20,
	MAPS_REFRESH_NS = 50 * 1000 * 1000,
	UNKNOWN_STACK_SPAN = 8 << 20, /* stack size assumed when sp is in no known mapping */
};

void sample_walker_init(struct sample_walker *w, struct stackwalk *sw, struct addrspace *as,
			pid_t pid)
{
	memset(w, 0, sizeof(*w));
	w->sw = sw;
	w->as = as;
	memsrc_live_init(&w->live, pid);
	sw->async.live = &w->live.base; /* an async chain is read again from the process itself */
	memsrc_fence_init(&w->fence, &w->live.base);
	memsnap_init(&w->snap, &w->fence.base, SNAPSHOT_BUDGET);
	maps_refresh_init(&w->maps_fresh, MAPS_REFRESH_NS);
	w->pac_mask = regset_pac_mask_default();
}

void sample_walker_free(struct sample_walker *w)
{
	memsnap_free(&w->snap);
	memsrc_live_close(&w->live);
}

bool sample_ranges(const uint8_t *mem, size_t mem_len, sample_range_fn fn, void *ctx)
{
	size_t off = 0;
	while (off < mem_len) {
		struct v8w_range r;
		if (mem_len - off < sizeof(r))
			return false;
		memcpy(&r, mem + off, sizeof(r));
		off += sizeof(r);
		if (r.len > mem_len - off || r.addr + r.len < r.addr)
			return false;
		fn(ctx, &r, mem + off);
		off += ((size_t)r.len + 7) & ~(size_t)7;
	}
	return true;
}

static void keep_range(void *ctx, const struct v8w_range *r, const uint8_t *bytes)
{
	memsnap_put(ctx, r->addr, bytes, r->len);
}

int sample_walk(struct sample_walker *w, const struct v8w_record *rec, const uint8_t *mem,
		size_t mem_len, struct frame *out, int max, struct walk_stats *st)
{
	uint64_t user_regs[V8W_USER_REGS];
	memcpy(user_regs, rec->regs, sizeof(user_regs));
	struct regset regs;
	regset_from_bpf(&regs, user_regs);
	regs.pac_mask = w->pac_mask;
	memsnap_reset(&w->snap);
	if (!sample_ranges(mem, mem_len, keep_range, &w->snap))
		return -1;
	uint64_t sp = regs.r[REG_SP];
	struct stack_bounds b;
	if (!stack_bounds_at(&w->maps_fresh, w->as, sp, &b)) {
		b.lo = sp;
		b.hi = sp + UNKNOWN_STACK_SPAN;
	}
	memsrc_fence_set(&w->fence, b.lo, b.hi);
	return stackwalk_capture_fresh(w->sw, &w->maps_fresh, &regs, &w->snap.base, &b, out, max, st);
}
