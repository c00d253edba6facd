/* async_chain.c — following await chains through promises, reactions and closures. */
#include "async_chain.h"

#include <string.h>

enum { HOP_LIMIT = 1024, OBJ_SPAN = 128 };

/* One word of an object, recorded in the trail. */
static bool word(struct async_walk *w, uint64_t obj, int32_t off, uint64_t *v)
{
	if (off < 0 || !v8_field(w->h, obj, off, v))
		return false;
	w->reads++;
	struct async_trail *t = w->trail;
	if (t) {
		if (t->n < ASYNC_TRAIL_WORDS)
			t->w[t->n++] = (struct trail_word){.obj = obj - 1, .off = (uint32_t)off, .val = *v};
		else
			t->overflow = true;
	}
	return true;
}

static bool item_word(struct async_walk *w, uint64_t obj, enum v8_item item, uint64_t *v)
{
	return v8_has(w->h->L, item) && word(w, obj, w->h->L->v[item], v);
}

static bool smi_item(struct async_walk *w, uint64_t obj, enum v8_item item, int64_t *v)
{
	uint64_t x;
	if (!item_word(w, obj, item, &x) || !v8_is_smi(x))
		return false;
	*v = v8_smi_value(x);
	return true;
}

/* The instance type of obj (-1: not a readable heap object). Its map word goes into the trail; a
 * forwarding address there marks the walk as moved. */
static int type_of(struct async_walk *w, uint64_t obj)
{
	const struct v8_layout *L = w->h->L;
	uint64_t map;
	if (!v8_is_heap_object(obj) || !word(w, obj, L->v[L_HEAPOBJECT_MAP], &map))
		return -1;
	if (!v8_is_heap_object(map)) {
		/* V8 stores a forwarding address untagged (MapWord::FromForwardingAddress) */
		if (map && !(map & 7))
			w->moved = true;
		return -1;
	}
	int known;
	if (w->h->types && map_types_get(w->h->types, map, &known))
		return known;
	uint16_t type;
	if (!v8_field_u16(w->h, map, L->v[L_MAP_INSTANCE_TYPE], &type))
		return -1;
	if (w->h->types)
		map_types_note(w->h->types, L, map, type);
	return type;
}

static bool type_is(const struct v8_layout *L, int t, enum v8_item item)
{
	return t >= 0 && v8_has(L, item) && t == L->v[item];
}

static bool is_jsfunction_type(const struct v8_layout *L, int t)
{
	return t >= 0 && t >= L->v[L_T_JSFUNC_FIRST] && t <= L->v[L_T_JSFUNC_LAST];
}

bool async_word(struct async_walk *w, uint64_t obj, int32_t off, uint64_t *v)
{
	return word(w, obj, off, v);
}

bool async_is_promise(struct async_walk *w, uint64_t obj)
{
	return type_is(w->h->L, type_of(w, obj), L_T_JS_PROMISE);
}

bool async_is_generator(struct async_walk *w, uint64_t obj)
{
	int t = type_of(w, obj);
	return type_is(w->h->L, t, L_T_JS_ASYNC_FUNCTION_OBJECT) || type_is(w->h->L, t, L_T_JS_ASYNC_GENERATOR_OBJECT);
}

/* Context slot i of a closure's context. */
static bool closure_slot(struct async_walk *w, uint64_t closure, enum v8_item slot_item, int64_t slot,
			 uint64_t *v)
{
	const struct v8_layout *L = w->h->L;
	uint64_t ctx;
	if (slot_item != L_COUNT) {
		if (!v8_has(L, slot_item))
			return false;
		slot = L->v[slot_item];
	}
	return word(w, closure, L->v[L_JSFUNC_CONTEXT], &ctx) && v8_is_heap_object(ctx) &&
	       word(w, ctx, L->v[L_FIXED_ARRAY_DATA] + (int32_t)(8 * slot), v);
}

uint64_t async_closure_generator(struct async_walk *w, uint64_t closure)
{
	uint64_t g;
	if (!closure_slot(w, closure, L_CONTEXT_EXTENSION, 0, &g) || !async_is_generator(w, g))
		return 0;
	return g;
}

enum async_builtin async_closure_kind(struct async_walk *w, uint64_t closure)
{
	const struct v8_layout *L = w->h->L;
	uint64_t sfi, id;
	if (!is_jsfunction_type(L, type_of(w, closure)) || !item_word(w, closure, L_JSFUNC_SHARED, &sfi) ||
	    !v8_is_heap_object(sfi))
		return AB_NONE;
	uint64_t cached;
	bool by_id = w->ids && w->ids->n;
	if (by_id && w->sfi_kinds && u64map_get(w->sfi_kinds, sfi, &cached))
		return (enum async_builtin)(cached - 1);
	if (!item_word(w, sfi, L_SFI_BUILTIN_ID, &id) || !v8_is_smi(id) || v8_smi_value(id) < 0)
		return AB_NONE; /* user code (a BytecodeArray there, or Smi(-1)) is not cached */
	enum async_builtin k;
	if (by_id) {
		k = builtin_ids_kind(w->ids, v8_smi_value(id));
		if (w->sfi_kinds)
			u64map_put(w->sfi_kinds, sfi, (uint64_t)k + 1);
	} else {
		/* no table of names: a builtin closure whose context holds a generator resumes it (no
		 * user closure has one there); the combinators cannot be told apart */
		k = async_closure_generator(w, closure) ? AB_AWAIT : AB_NONE;
	}
	return k;
}

int64_t async_generator_state(struct async_walk *w, uint64_t gen)
{
	int64_t c;
	return smi_item(w, gen, L_JSGEN_CONTINUATION, &c) ? c : INT64_MIN;
}

bool async_generator_frame(struct async_walk *w, uint64_t gen, struct async_frame *f)
{
	const struct v8_layout *L = w->h->L;
	memset(f, 0, sizeof(*f));
	f->kind = AF_FUNCTION;
	f->generator = gen;
	int64_t pos;
	uint64_t shared;
	if (!item_word(w, gen, L_JSGEN_FUNCTION, &f->function) || !is_jsfunction_type(L, type_of(w, f->function)) ||
	    !item_word(w, f->function, L_JSFUNC_SHARED, &shared) || !item_word(w, gen, L_JSGEN_RECEIVER, &f->receiver))
		return false;
	f->suspend_pos = smi_item(w, gen, L_JSGEN_INPUT_OR_DEBUG_POS, &pos) && pos >= 0 ? pos : -1;
	return true;
}

uint64_t async_generator_promise(struct async_walk *w, uint64_t gen)
{
	const struct v8_layout *L = w->h->L;
	int t = type_of(w, gen);
	uint64_t p, queue;
	if (type_is(L, t, L_T_JS_ASYNC_FUNCTION_OBJECT))
		return item_word(w, gen, L_JSASYNC_PROMISE, &p) ? p : 0;
	if (type_is(L, t, L_T_JS_ASYNC_GENERATOR_OBJECT) && item_word(w, gen, L_JSASYNCGEN_QUEUE, &queue) &&
	    type_is(L, type_of(w, queue), L_T_ASYNC_GENERATOR_REQUEST) && item_word(w, queue, L_AGR_PROMISE, &p))
		return p;
	return 0;
}

bool async_promise_pending(struct async_walk *w, uint64_t promise)
{
	const struct v8_layout *L = w->h->L;
	int64_t flags;
	return type_is(L, type_of(w, promise), L_T_JS_PROMISE) && smi_item(w, promise, L_JSPROMISE_FLAGS, &flags) &&
	       (flags & L->v[L_PROMISE_STATUS_MASK]) == 0;
}

/* The end for a value that should have been an object of some type. */
static enum async_end bad(const struct async_walk *w)
{
	return w->moved ? AE_MOVED : AE_BAD;
}

/* A combinator element closure: its frame, and the capability's promise to go on with (0: stop). */
static uint64_t combinator(struct async_walk *w, uint64_t closure, enum async_builtin k, struct async_frame *f,
			   enum async_end *end)
{
	const struct v8_layout *L = w->h->L;
	uint64_t hash, cap, p;
	memset(f, 0, sizeof(*f));
	f->kind = k == AB_ALL_RESOLVE ? AF_ALL : k == AB_ALLSETTLED_RESOLVE ? AF_ALLSETTLED : AF_ANY;
	f->suspend_pos = -1;
	/* the element's index is its identity hash - 1 (promise-all.tq) */
	if (!item_word(w, closure, L_JSRECEIVER_PROPERTIES, &hash) || !v8_is_smi(hash)) {
		*end = bad(w);
		return 0;
	}
	f->index = (int32_t)(v8_smi_value(hash) - 1);
	/* an element that already ran has the native context for its context: no capability there */
	if (!closure_slot(w, closure, L_CONTEXT_CAPABILITY_SLOT, 0, &cap) ||
	    !type_is(L, type_of(w, cap), L_T_PROMISE_CAPABILITY) || !item_word(w, cap, L_CAPABILITY_PROMISE, &p)) {
		*end = w->moved ? AE_MOVED : AE_OTHER;
		return 0;
	}
	return p;
}

int async_chain_from_promise(struct async_walk *w, uint64_t promise, struct async_frame *out, int max,
			     enum async_end *end)
{
	const struct v8_layout *L = w->h->L;
	int n = 0;
	for (int hop = 0; hop < HOP_LIMIT; hop++) {
		int64_t flags;
		uint64_t r, next, f, j, p;
		if (!type_is(L, type_of(w, promise), L_T_JS_PROMISE)) {
			*end = w->moved ? AE_MOVED : AE_OTHER;
			return n;
		}
		if (!smi_item(w, promise, L_JSPROMISE_FLAGS, &flags) || !item_word(w, promise, L_JSPROMISE_REACTIONS, &r)) {
			*end = bad(w);
			return n;
		}
		if ((flags & L->v[L_PROMISE_STATUS_MASK]) != 0) {
			*end = AE_SETTLED;
			return n;
		}
		if (v8_is_smi(r)) {
			*end = AE_NOBODY;
			return n;
		}
		if (!type_is(L, type_of(w, r), L_T_PROMISE_REACTION) || !item_word(w, r, L_REACTION_NEXT, &next) ||
		    !item_word(w, r, L_REACTION_FULFILL, &f) || !item_word(w, r, L_REACTION_REJECT, &j)) {
			*end = bad(w);
			return n;
		}
		if (!v8_is_smi(next)) {
			*end = AE_SEVERAL;
			return n;
		}
		enum async_builtin kf = async_closure_kind(w, f);
		/* (Promise.any's elements have the capability's resolve function for their fulfill
		 * handler: the reject handler is asked before that is taken for Promise.race's) */
		enum async_builtin kj = kf == AB_NONE || kf == AB_DEFAULT_RESOLVE ? async_closure_kind(w, j) : AB_NONE;
		if (w->moved) {
			*end = AE_MOVED;
			return n;
		}
		if (n >= max) {
			*end = AE_LIMIT;
			return n;
		}
		if (kf == AB_AWAIT) {
			uint64_t g = async_closure_generator(w, f);
			if (!g || async_generator_state(w, g) < 0 || !async_generator_frame(w, g, &out[n])) {
				*end = bad(w);
				return n;
			}
			n++;
			promise = async_generator_promise(w, g);
			if (!promise) {
				*end = w->moved ? AE_MOVED : AE_NOBODY; /* an async generator with no request */
				return n;
			}
			continue;
		}
		if (kf == AB_ALL_RESOLVE || kf == AB_ALLSETTLED_RESOLVE || kj == AB_ANY_REJECT) {
			enum async_builtin k = kj == AB_ANY_REJECT ? kj : kf;
			if (k == AB_ALLSETTLED_RESOLVE && !L->v[L_ASYNC_ALLSETTLED]) {
				*end = AE_OTHER;
				return n;
			}
			promise = combinator(w, k == AB_ANY_REJECT ? j : f, k, &out[n], end);
			if (!promise)
				return n;
			n++;
			continue;
		}
		if (kf == AB_DEFAULT_RESOLVE) {
			if (!closure_slot(w, f, L_CONTEXT_PROMISE_SLOT, 0, &promise)) {
				*end = bad(w);
				return n;
			}
			continue;
		}
		/* anything else: the promise (or capability) the reaction settles */
		if (!item_word(w, r, L_REACTION_PROMISE, &p)) {
			*end = bad(w);
			return n;
		}
		if (type_is(L, type_of(w, p), L_T_PROMISE_CAPABILITY)) {
			if (!item_word(w, p, L_CAPABILITY_PROMISE, &p)) {
				*end = bad(w);
				return n;
			}
		}
		if (w->moved) {
			*end = AE_MOVED;
			return n;
		}
		promise = p; /* checked at the top: a JSPromise or the end */
	}
	*end = AE_LIMIT;
	return n;
}

int async_chain_of_generator(struct async_walk *w, uint64_t gen, struct async_frame *out, int max,
			     enum async_end *end)
{
	uint64_t p = async_generator_promise(w, gen);
	if (!p) {
		*end = w->moved ? AE_MOVED : AE_NOBODY;
		return 0;
	}
	return async_chain_from_promise(w, p, out, max, end);
}

/* ---- checking a trail again ---- */

bool async_trail_holds(const struct async_trail *t, struct memsrc *live)
{
	if (t->overflow)
		return false;
	if (!t->n)
		return true;
	struct mem_range r[ASYNC_TRAIL_OBJECTS];
	uint8_t buf[ASYNC_TRAIL_OBJECTS][OBJ_SPAN];
	size_t nr = 0;
	int at[ASYNC_TRAIL_WORDS];
	/* one range per object, as long as its highest word read */
	for (size_t i = 0; i < t->n; i++) {
		const struct trail_word *tw = &t->w[i];
		if (tw->off + 8 > OBJ_SPAN)
			return false;
		size_t k = 0;
		while (k < nr && r[k].addr != tw->obj)
			k++;
		if (k == nr) {
			if (nr == ASYNC_TRAIL_OBJECTS)
				return false;
			r[nr++] = (struct mem_range){.addr = tw->obj, .buf = buf[k], .len = 0};
		}
		if (r[k].len < tw->off + 8)
			r[k].len = tw->off + 8;
		at[i] = (int)k;
	}
	mem_readv(live, r, nr);
	for (size_t i = 0; i < t->n; i++) {
		const struct trail_word *tw = &t->w[i];
		const struct mem_range *x = &r[at[i]];
		if (x->got < tw->off + 8 || memcmp((const uint8_t *)x->buf + tw->off, &tw->val, 8) != 0)
			return false;
	}
	return true;
}
