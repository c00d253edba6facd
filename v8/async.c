/* async.c — async stack traces through promise reactions. */
#include "async.h"

#include "bytecode.h"

enum { GENERATOR_EXECUTING = -2 };

static bool field(const struct v8_heap *h, uint64_t obj, enum v8_item item, uint64_t *v)
{
	return v8_has(h->L, item) && v8_field(h, obj, h->L->v[item], v);
}

static bool is_async_function_object(const struct v8_heap *h, uint64_t obj)
{
	return v8_is_heap_object(obj) && v8_is(h, obj, L_T_JS_ASYNC_FUNCTION_OBJECT);
}

uint64_t async_generator_of_closure(const struct v8_heap *h, uint64_t closure)
{
	const struct v8_layout *L = h->L;
	uint64_t ctx, ext;
	/* Contexts have instance types of their own; the slot's type check below is the guard */
	if (!v8_field(h, closure, L->v[L_JSFUNC_CONTEXT], &ctx) || !v8_is_heap_object(ctx) ||
	    !v8_has(L, L_CONTEXT_EXTENSION) || !v8_array_get(h, ctx, L->v[L_CONTEXT_EXTENSION], &ext))
		return 0;
	return is_async_function_object(h, ext) ? ext : 0;
}

static int64_t smi_field(const struct v8_heap *h, uint64_t obj, enum v8_item item, int64_t dflt)
{
	uint64_t v;
	return field(h, obj, item, &v) && v8_is_smi(v) ? v8_smi_value(v) : dflt;
}

/* The suspended async function a promise's only reaction resumes, or 0 (settled, several
 * reactions, or a handler that is not an await continuation). Follows plain promise chains. */
static uint64_t next_awaiting(const struct v8_heap *h, uint64_t *promise)
{
	const struct v8_layout *L = h->L;
	for (int hop = 0; hop < 16; hop++) {
		uint64_t reaction, handler, next, chained;
		int64_t flags = smi_field(h, *promise, L_JSPROMISE_FLAGS, -1);
		if (!v8_is(h, *promise, L_T_JS_PROMISE) || flags < 0 ||
		    (flags & L->v[L_PROMISE_STATUS_MASK]) != 0 /* pending */ ||
		    !field(h, *promise, L_JSPROMISE_REACTIONS, &reaction) ||
		    !v8_is(h, reaction, L_T_PROMISE_REACTION) ||
		    !field(h, reaction, L_REACTION_NEXT, &next) || !v8_is_smi(next) ||
		    !field(h, reaction, L_REACTION_FULFILL, &handler))
			return 0;
		uint64_t gen = v8_is_jsfunction(h, handler) ? async_generator_of_closure(h, handler) : 0;
		if (gen)
			return gen;
		/* a generic chain: continue with the promise this reaction settles */
		if (!field(h, reaction, L_REACTION_PROMISE, &chained) || !v8_is(h, chained, L_T_JS_PROMISE))
			return 0;
		*promise = chained;
	}
	return 0;
}

int async_callers(const struct v8_heap *h, uint64_t running, struct async_frame *out, int max)
{
	int n = 0;
	uint64_t gen = running, promise;
	if (smi_field(h, gen, L_JSGEN_CONTINUATION, 0) != GENERATOR_EXECUTING)
		return 0;
	while (n < max && field(h, gen, L_JSASYNC_PROMISE, &promise)) {
		gen = next_awaiting(h, &promise);
		/* the awaiting function must be suspended (continuation >= 0) */
		if (!gen || smi_field(h, gen, L_JSGEN_CONTINUATION, -1) < 0)
			break;
		struct async_frame *f = &out[n];
		if (!field(h, gen, L_JSGEN_FUNCTION, &f->function) || !v8_is_jsfunction(h, f->function) ||
		    !field(h, gen, L_JSGEN_RECEIVER, &f->receiver))
			break;
		uint64_t sfi, bca;
		int64_t pos = smi_field(h, gen, L_JSGEN_INPUT_OR_DEBUG_POS, -1);
		f->bytecode_offset = -1;
		if (pos >= 0 && v8_field(h, f->function, h->L->v[L_JSFUNC_SHARED], &sfi) &&
		    (bca = sfi_bytecode_array(h, sfi)))
			f->bytecode_offset = bca_offset_from_frame(h, bca, pos);
		n++;
	}
	return n;
}
