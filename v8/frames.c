/* frames.c — classifying the frame at a frame pointer. */
#include "frames.h"

#include <string.h>

/* A frame-type marker in the context slot: Smi-tagged 32-bit values, type << 1. */
static bool marker_type(const struct v8_layout *L, uint64_t w, int32_t *type)
{
	uint64_t t = w >> 1;
	if (!v8_is_smi(w) || w >> 32 || t == 0 || (int64_t)t > L->max_frametype)
		return false;
	*type = (int32_t)t;
	return true;
}

bool v8_read_frame_type(const struct v8_heap *h, uint64_t fp, int32_t *type)
{
	uint64_t w;
	return mem_read_u64(h->mem, fp + (int64_t)h->L->v[L_FP_CONTEXT], &w) && marker_type(h->L, w, type);
}

bool v8_read_frame(const struct v8_heap *h, uint64_t fp, struct v8_frame *out)
{
	const struct v8_layout *L = h->L;
	memset(out, 0, sizeof(*out));
	/* one read covers the fixed slots fp-40 .. fp */
	int32_t lo = L->v[L_FP_BYTECODE_OFFSET];
	if (lo > L->v[L_FP_FUNCTION])
		lo = L->v[L_FP_FUNCTION];
	if (lo < -64 || lo > -8)
		lo = -40;
	uint64_t slots[8];
	size_t n = (size_t)(-lo) / 8;
	if (n > 8 || !mem_read(h->mem, fp + lo, slots, n * 8))
		return false;
#define SLOT(off) slots[((off) - lo) / 8]
	uint64_t w = SLOT(L->v[L_FP_CONTEXT]);
	if (v8_is_smi(w)) {
		if (marker_type(L, w, &out->type))
			out->kind = VF_TYPED;
		return true;
	}
	if (!v8_is_heap_object(w))
		return true;
	uint64_t fn = SLOT(L->v[L_FP_FUNCTION]), moved;
	/* a scavenge in progress (parallel, on other threads) may have copied the function and not
	 * yet updated this frame's slot: the copy is complete before the forwarding address is
	 * installed, so the function is read at its new place */
	if (!v8_is_jsfunction(h, fn) && v8_forwarded(h, fn, &moved) && v8_is_jsfunction(h, moved))
		fn = moved;
	if (!v8_is_jsfunction(h, fn))
		return true;
	out->kind = VF_JS;
	out->context = w;
	out->function = fn;
	if (v8_has(L, L_FP_BYTECODE_ARRAY) && L->v[L_FP_BYTECODE_ARRAY] >= lo)
		out->bytecode_array = SLOT(L->v[L_FP_BYTECODE_ARRAY]);
	if (v8_has(L, L_FP_BYTECODE_OFFSET) && L->v[L_FP_BYTECODE_OFFSET] >= lo)
		out->bytecode_offset = SLOT(L->v[L_FP_BYTECODE_OFFSET]);
#undef SLOT
	return true;
}

bool v8_frame_is_entry(const struct v8_layout *L, const struct v8_frame *f)
{
	return f->kind == VF_TYPED &&
	       (f->type == L->v[L_FT_ENTRY] || f->type == L->v[L_FT_CONSTRUCT_ENTRY]);
}

bool v8_frame_type_is_construct(const struct v8_layout *L, int32_t type)
{
	return (v8_has(L, L_FT_CONSTRUCT) && type == L->v[L_FT_CONSTRUCT]) ||
	       (v8_has(L, L_FT_FAST_CONSTRUCT) && type == L->v[L_FT_FAST_CONSTRUCT]);
}
