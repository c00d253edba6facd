/* prefetch.c — batched copies of the heap objects JS frames need. */
#include "prefetch.h"

#include <string.h>

#include "../v8/heap.h"

enum { MAX_BATCH = 256, OBJ_BYTES = 64, MAP_BYTES = 16, CODE_BYTES = 80, TABLE_BYTES = 256 };

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

/* Remember the whole objects of a batch (receivers are copied for their map word only). */
static void record(struct prefetched *out, const struct batch *b)
{
	for (size_t i = 0; i < b->n && out->n < PREFETCH_MAX_OBJECTS; i++)
		if (b->len[i] != MAP_BYTES)
			out->obj[out->n++] = b->addr[i];
}

void prefetch_js_objects(const struct v8_runtime *rt, struct addrspace *as, struct memsrc *mem,
			 const struct raw_frame *raw, int n, struct prefetched *out)
{
	out->n = 0;
	if (!rt || !mem->ops->prefetch)
		return;
	const struct v8_layout *L = &rt->L;
	struct batch fns = {.n = 0};
	/* the function, bytecode-array and receiver slots of frames in V8 code: read from the stack
	 * copy, no syscall */
	for (int i = 0; i < n; i++) {
		if (!raw[i].fp_ok)
			continue;
		struct pc_info pi;
		bool exact = raw[i].how == FRAME_TOP || raw[i].how == FRAME_SIGNAL_RESUME;
		v8_classify_pc(rt, as, exact ? raw[i].pc : raw[i].pc - 1, &pi);
		if (pi.cls == PC_NATIVE && !raw[i].no_cfi)
			continue;
		uint64_t ctx, fn, bca, receiver;
		if (!word(mem, raw[i].fp + L->v[L_FP_CONTEXT], &ctx) || !v8_is_heap_object(ctx) ||
		    !word(mem, raw[i].fp + L->v[L_FP_FUNCTION], &fn))
			continue;
		add(&fns, fn, OBJ_BYTES);
		if (v8_has(L, L_FP_BYTECODE_ARRAY) && word(mem, raw[i].fp + L->v[L_FP_BYTECODE_ARRAY], &bca))
			add(&fns, bca, OBJ_BYTES);
		if (v8_has(L, L_FP_ARGS) && word(mem, raw[i].fp + L->v[L_FP_ARGS], &receiver))
			add(&fns, receiver, MAP_BYTES);
	}
	mem_prefetch(mem, fns.addr, fns.len, fns.n);
	record(out, &fns);
}

void prefetch_js_details(const struct v8_runtime *rt, struct memsrc *mem, struct prefetched *p)
{
	if (!rt || !mem->ops->prefetch)
		return;
	const struct v8_layout *L = &rt->L;
	struct batch second = {.n = 0};
	/* the SharedFunctionInfos, position tables and code of the objects copied at the stop (the
	 * maps of all of them are root maps: never moved, their types remembered by v8/map_types) */
	for (size_t i = 0, n = p->n; i < n; i++) {
		uint64_t sfi, table, code;
		if (word(mem, p->obj[i] + L->v[L_JSFUNC_SHARED], &sfi))
			add(&second, sfi, OBJ_BYTES);
		if (v8_has(L, L_BCA_SPT) && word(mem, p->obj[i] + L->v[L_BCA_SPT], &table))
			add(&second, table, TABLE_BYTES); /* harmless when obj[i] is not a BytecodeArray */
		/* the function's current code (a pointer before leaptiering): its header locates it */
		if (!L->v[L_LEAPTIERING] && v8_has(L, L_JSFUNC_CODE) &&
		    word(mem, p->obj[i] + L->v[L_JSFUNC_CODE], &code))
			add(&second, code, CODE_BYTES);
	}
	mem_prefetch(mem, second.addr, second.len, second.n);
	record(p, &second);
}
