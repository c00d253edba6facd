/* prefetch.c — batched copies of the heap objects JS frames need. */
#include "prefetch.h"

#include <string.h>

#include "../v8/heap.h"

/* MAP_BYTES: a receiver's map word; MAP_OBJ_BYTES: a whole Map (80 bytes without pointer
 * compression, 40 with), its type, bit fields, prototype, constructor and descriptors */
enum { SLOT_BATCH = 256, MAX_BATCH = 512, OBJ_BYTES = 64, MAP_BYTES = 16, MAP_OBJ_BYTES = 80, CODE_BYTES = 80,
       TABLE_BYTES = 256 };

struct batch {
	uint64_t addr[MAX_BATCH];
	uint32_t len[MAX_BATCH];
	uint8_t kind[MAX_BATCH];
	size_t n, max; /* max <= MAX_BATCH */
};

static void add(struct batch *b, uint64_t tagged, uint32_t len, enum prefetch_kind kind)
{
	if (!v8_is_heap_object(tagged) || b->n >= b->max)
		return;
	for (size_t i = 0; i < b->n; i++)
		if (b->addr[i] == tagged - 1) {
			/* a JS frame's receiver too: checked; a decoded frame's too: its map copied */
			if (b->kind[i] == PF_SLOT_WORD || (b->kind[i] == PF_MEMO_RECEIVER && kind != PF_SLOT_WORD)) {
				b->kind[i] = (uint8_t)kind;
				if (len > b->len[i])
					b->len[i] = len;
			}
			return;
		}
	b->addr[b->n] = tagged - 1;
	b->kind[b->n] = (uint8_t)kind;
	b->len[b->n++] = len;
}

static bool word(struct memsrc *mem, uint64_t addr, uint64_t *v)
{
	return mem_read_u64(mem, addr, v);
}

/* Remember the whole objects of a batch (receivers are copied for their map word only). */
static void record(struct prefetched *out, const struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		if (b->kind[i] == PF_RECEIVER || b->kind[i] == PF_MEMO_RECEIVER) {
			if (out->nreceivers < PREFETCH_MAX_OBJECTS) {
				out->receiver_decoded[out->nreceivers] = b->kind[i] == PF_RECEIVER;
				out->receivers[out->nreceivers++] = b->addr[i];
			}
		} else if (b->kind[i] != PF_MAP && b->kind[i] != PF_SLOT_WORD && b->kind[i] != PF_ALSO &&
			   out->n < PREFETCH_MAX_OBJECTS) {
			out->kind[out->n] = b->kind[i];
			out->obj[out->n++] = b->addr[i];
		}
	}
}

/* The maps of the slots' objects (those of which `only` is true, when it is given), unless they
 * are root maps whose type is known. */
static void add_maps(struct batch *b, const struct v8_layout *L, struct map_types *types,
		     struct memsrc *mem, const uint64_t *obj, const bool *only, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t map;
		int type;
		if ((!only || only[i]) && word(mem, obj[i] + L->v[L_HEAPOBJECT_MAP], &map) &&
		    !(types && map_types_get(types, map, &type)))
			add(b, map, MAP_OBJ_BYTES, PF_MAP);
	}
}

void prefetch_js_objects(const struct v8_runtime *rt, struct addrspace *as, struct memsrc *mem,
			 const struct raw_frame *raw, int n, const uint32_t *skip,
			 const struct prefetch_also *also, struct prefetched *out)
{
	out->n = out->nreceivers = 0;
	if (!rt || !mem->ops->prefetch)
		return;
	const struct v8_layout *L = &rt->L;
	struct batch fns = {.n = 0, .max = SLOT_BATCH}; /* the frames' slots: at most 256 objects */
	/* the function, bytecode-array and receiver slots of frames in V8 code: read from the stack
	 * copy, no syscall */
	for (int i = 0; i < n; i++) {
		uint64_t receiver;
		if (!raw[i].fp_ok)
			continue;
		/* a frame the memo has: only its receiver's map word, which the entry must match */
		if (skip && skip[i]) {
			if (v8_has(L, L_FP_ARGS) && word(mem, raw[i].fp + L->v[L_FP_ARGS], &receiver))
				add(&fns, receiver, MAP_BYTES,
				    skip[i] == PREFETCH_SKIP_NOT_JS ? PF_SLOT_WORD : PF_MEMO_RECEIVER);
			continue;
		}
		struct pc_info pi;
		bool exact = raw[i].how == FRAME_TOP || raw[i].how == FRAME_SIGNAL_RESUME;
		v8_classify_pc(rt, as, exact ? raw[i].pc : raw[i].pc - 1, &pi);
		if (pi.cls == PC_NATIVE && !raw[i].no_cfi)
			continue;
		bool has_receiver = v8_has(L, L_FP_ARGS) && word(mem, raw[i].fp + L->v[L_FP_ARGS], &receiver);
		uint64_t ctx, fn, bca;
		if (!word(mem, raw[i].fp + L->v[L_FP_CONTEXT], &ctx) || !v8_is_heap_object(ctx) ||
		    !word(mem, raw[i].fp + L->v[L_FP_FUNCTION], &fn)) {
			/* a builtin's or stub's frame (a marker where a JS frame has its context): the
			 * memo keeps it under its receiver slot's map word too (frame_memo.h) */
			if (has_receiver)
				add(&fns, receiver, MAP_BYTES, PF_SLOT_WORD);
			continue;
		}
		add(&fns, fn, OBJ_BYTES, pi.cls == PC_JIT || exact ? PF_FUNCTION : PF_FUNCTION_IN_BUILTIN);
		if (v8_has(L, L_FP_BYTECODE_ARRAY) && word(mem, raw[i].fp + L->v[L_FP_BYTECODE_ARRAY], &bca))
			add(&fns, bca, OBJ_BYTES, PF_BYTECODE);
		if (has_receiver)
			add(&fns, receiver, MAP_BYTES, PF_RECEIVER);
	}
	for (size_t i = 0; also && i < also->n; i++)
		add(&fns, also->addr[i] | 1, also->len[i], PF_ALSO);
	mem_prefetch(mem, fns.addr, fns.len, fns.n);
	record(out, &fns);
}

/* Where the object at addr had its map, a forwarding word (not a tagged pointer)? */
static bool forwarded(const struct v8_layout *L, struct memsrc *mem, uint64_t addr)
{
	uint64_t map;
	return word(mem, addr + L->v[L_HEAPOBJECT_MAP], &map) && !v8_is_heap_object(map);
}

bool prefetched_moved(const struct v8_runtime *rt, struct memsrc *mem, const struct prefetched *p)
{
	if (!rt)
		return false;
	for (size_t i = 0; i < p->n; i++)
		if ((p->kind[i] == PF_FUNCTION || p->kind[i] == PF_FUNCTION_IN_BUILTIN) &&
		    forwarded(&rt->L, mem, p->obj[i]))
			return true;
	for (size_t i = 0; i < p->nreceivers; i++)
		if (forwarded(&rt->L, mem, p->receivers[i]))
			return true;
	return false;
}

/* The SharedFunctionInfos inlined into the code of the raw frames, as decoded before. */
static void add_inlined(struct batch *b, const struct v8_layout *L, const struct prefetch_hints *hints)
{
	if (!hints->positions)
		return;
	for (int i = 0; i < hints->nraw; i++) {
		if (hints->skip && hints->skip[i])
			continue;
		const struct raw_frame *rf = &hints->raw[i];
		bool exact = rf->how == FRAME_TOP || rf->how == FRAME_SIGNAL_RESUME;
		uint64_t sfi[32];
		int n = positions_inlined_at(hints->positions, L, exact ? rf->pc : rf->pc - 1, sfi, 32);
		for (int k = 0; k < n; k++)
			add(b, sfi[k], OBJ_BYTES, PF_DETAIL);
	}
}

void prefetch_js_details(const struct v8_runtime *rt, const struct prefetch_hints *hints,
			 struct memsrc *mem, struct prefetched *p)
{
	struct map_types *types = hints->types;
	if (!rt || !mem->ops->prefetch)
		return;
	const struct v8_layout *L = &rt->L;
	const struct v8_heap copy = {.mem = mem, .L = L, .types = types};
	struct batch second = {.n = 0, .max = MAX_BATCH};
	/* the SharedFunctionInfos and code of the functions of the first batch, the position tables
	 * of their bytecode arrays (the maps of all of them are root maps: never moved, their types
	 * remembered by v8/map_types). A slot holding something else (an optimized frame keeps spill
	 * slots where the bytecode array would be) is skipped once its map is known to be a root map
	 * of another type; until then it is copied as it would be, harmlessly. */
	for (size_t i = 0, n = p->n; i < n; i++) {
		uint64_t map, sfi, table, code;
		int type = -1;
		if (types && word(mem, p->obj[i] + L->v[L_HEAPOBJECT_MAP], &map))
			map_types_get(types, map, &type);
		bool function = p->kind[i] == PF_FUNCTION || p->kind[i] == PF_FUNCTION_IN_BUILTIN;
		if (function && type < 0) {
			if (word(mem, p->obj[i] + L->v[L_JSFUNC_SHARED], &sfi))
				add(&second, sfi, OBJ_BYTES, PF_DETAIL);
			/* the function's current code (a pointer before leaptiering): its header
			 * locates the code a JIT frame runs */
			if (p->kind[i] == PF_FUNCTION && !L->v[L_LEAPTIERING] && v8_has(L, L_JSFUNC_CODE) &&
			    word(mem, p->obj[i] + L->v[L_JSFUNC_CODE], &code))
				add(&second, code, CODE_BYTES, PF_DETAIL);
		} else if (p->kind[i] == PF_BYTECODE && v8_has(L, L_BCA_SPT) &&
			   (type < 0 || type == L->v[L_T_BYTECODE_ARRAY]) &&
			   word(mem, p->obj[i] + L->v[L_BCA_SPT], &table) &&
			   !(hints->positions && positions_bca_kept(hints->positions, &copy, p->obj[i] + 1))) {
			/* a table whose decoding is kept is not read again */
			add(&second, table, TABLE_BYTES, PF_DETAIL);
		}
	}
	add_inlined(&second, L, hints);
	size_t stage1 = p->n;
	record(p, &second);
	/* the maps are not recorded: only read through the copies, never named from */
	add_maps(&second, L, types, mem, p->obj, NULL, stage1);
	add_maps(&second, L, types, mem, p->receivers, p->receiver_decoded, p->nreceivers);
	mem_prefetch(mem, second.addr, second.len, second.n);
}

static void put(uint64_t *out, int *n, int max, uint64_t tagged)
{
	if (v8_is_heap_object(tagged) && *n < max)
		out[(*n)++] = tagged - 1;
}

int prefetch_frame_objects(const struct v8_runtime *rt, const struct prefetch_hints *hints,
			   struct memsrc *mem, int i, uint64_t *out, int max)
{
	if (!rt || i < 0 || i >= hints->nraw || !hints->raw[i].fp_ok)
		return 0;
	const struct v8_layout *L = &rt->L;
	const struct raw_frame *rf = &hints->raw[i];
	uint64_t fn, v;
	int n = 0;
	if (word(mem, rf->fp + L->v[L_FP_FUNCTION], &fn) && v8_is_heap_object(fn)) {
		if (word(mem, fn - 1 + L->v[L_JSFUNC_SHARED], &v))
			put(out, &n, max, v);
		if (!L->v[L_LEAPTIERING] && v8_has(L, L_JSFUNC_CODE) &&
		    word(mem, fn - 1 + L->v[L_JSFUNC_CODE], &v))
			put(out, &n, max, v);
	}
	if (v8_has(L, L_FP_BYTECODE_ARRAY) && word(mem, rf->fp + L->v[L_FP_BYTECODE_ARRAY], &v))
		put(out, &n, max, v);
	if (hints->positions) {
		bool exact = rf->how == FRAME_TOP || rf->how == FRAME_SIGNAL_RESUME;
		uint64_t sfi[32];
		int k = positions_inlined_at(hints->positions, L, exact ? rf->pc : rf->pc - 1, sfi, 32);
		for (int j = 0; j < k; j++)
			put(out, &n, max, sfi[j]);
	}
	return n;
}
