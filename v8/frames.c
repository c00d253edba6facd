/* frames.c — classifying the frame at a frame pointer. */
#include "frames.h"

#include <string.h>

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
		/* markers are Smi-tagged 32-bit values: type << 1 */
		uint64_t type = w >> 1;
		if (w >> 32 || type == 0 || (int64_t)type > L->max_frametype)
			return true;
		out->kind = VF_TYPED;
		out->type = (int32_t)type;
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

bool v8_frame_is_construct(const struct v8_layout *L, const struct v8_frame *f)
{
	return f->kind == VF_TYPED &&
	       ((v8_has(L, L_FT_CONSTRUCT) && f->type == L->v[L_FT_CONSTRUCT]) ||
		(v8_has(L, L_FT_FAST_CONSTRUCT) && f->type == L->v[L_FT_FAST_CONSTRUCT]));
}
