/* prefetch.c — batched copies of the heap objects JS frames need. */
#include "prefetch.h"

#include <string.h>

#include "../v8/heap.h"

enum { MAX_BATCH = 256, OBJ_BYTES = 64, MAP_BYTES = 16 };

struct batch {
	uint64_t addr[MAX_BATCH];
	uint32_t len[MAX_BATCH];
	size_t n;
};

static void add(struct batch *b, uint64_t tagged, uint32_t len)
{
	if (!v8_is_heap_object(tagged) || b->n == MAX_BATCH)
		return;
	for (size_t i = 0; i < b->n; i++)
		if (b->addr[i] == tagged - 1)
			return;
	b->addr[b->n] = tagged - 1;
	b->len[b->n++] = len;
}

static bool word(struct memsrc *mem, uint64_t addr, uint64_t *v)
{
	return mem_read_u64(mem, addr, v);
}

void prefetch_js_objects(const struct v8_runtime *rt, struct addrspace *as, struct memsrc *mem,
			 const struct raw_frame *raw, int n)
{
	if (!rt || !mem->ops->prefetch)
		return;
	const struct v8_layout *L = &rt->L;
	struct batch fns = {.n = 0}, second = {.n = 0}, third = {.n = 0};
	/* the function slots of frames in V8 code: read from the stack copy, no syscall */
	for (int i = 0; i < n; i++) {
		if (!raw[i].fp_ok)
			continue;
		struct pc_info pi;
		bool exact = raw[i].how == FRAME_TOP || raw[i].how == FRAME_SIGNAL_RESUME;
		v8_classify_pc(rt, as, exact ? raw[i].pc : raw[i].pc - 1, &pi);
		if (pi.cls == PC_NATIVE && !raw[i].no_cfi)
			continue;
		uint64_t ctx, fn;
		if (word(mem, raw[i].fp + L->v[L_FP_CONTEXT], &ctx) && v8_is_heap_object(ctx) &&
		    word(mem, raw[i].fp + L->v[L_FP_FUNCTION], &fn))
			add(&fns, fn, OBJ_BYTES);
	}
	mem_prefetch(mem, fns.addr, fns.len, fns.n);
	/* their maps and SharedFunctionInfos */
	for (size_t i = 0; i < fns.n; i++) {
		uint64_t map, sfi;
		if (word(mem, fns.addr[i] + L->v[L_HEAPOBJECT_MAP], &map))
			add(&second, map, MAP_BYTES);
		if (word(mem, fns.addr[i] + L->v[L_JSFUNC_SHARED], &sfi))
			add(&second, sfi, OBJ_BYTES);
	}
	mem_prefetch(mem, second.addr, second.len, second.n);
	/* the SharedFunctionInfos' maps */
	for (size_t i = 0; i < second.n; i++) {
		uint64_t map;
		if (second.len[i] == OBJ_BYTES && word(mem, second.addr[i] + L->v[L_HEAPOBJECT_MAP], &map))
			add(&third, map, MAP_BYTES);
	}
	mem_prefetch(mem, third.addr, third.len, third.n);
}
