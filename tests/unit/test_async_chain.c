/* test_async_chain.c — await chains over a synthetic heap: the promises, reactions, builtin
 * closures (known by the builtin id in their SharedFunctionInfo), contexts and generators that
 * V8's CaptureAsyncStackTrace follows, each shape of chain it follows, where it stops, a moved
 * object, a cycle, a trail read again after the heap changed, and a live chain kept for the next
 * sample from the same place while its words hold. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../v8/async_chain.h"
#include "../../walker/async_frames.h"
#include "fake_heap.h"

/* instance types and builtin ids of this synthetic V8 */
enum {
	T_ASYNC_FN = 2106, T_ASYNC_GEN = 2107, T_PROMISE = 2063, T_REACTION = 163, T_CAPABILITY = 161,
	T_REQUEST = 148, T_CONTEXT = 205,
	ID_AWAIT = 1, ID_ALL = 2, ID_ALLSETTLED = 3, ID_ANY = 4, ID_DEFAULT_RESOLVE = 5, ID_OTHER = 6,
};

static struct fake_heap fh;
static struct builtin_ids ids;
static uint64_t undefined;

static void setup(void)
{
	fh_init(&fh);
	fh_set_item(&fh.L, L_T_JS_ASYNC_FUNCTION_OBJECT, T_ASYNC_FN);
	fh_set_item(&fh.L, L_T_JS_ASYNC_GENERATOR_OBJECT, T_ASYNC_GEN);
	fh_set_item(&fh.L, L_T_JS_PROMISE, T_PROMISE);
	fh_set_item(&fh.L, L_T_PROMISE_REACTION, T_REACTION);
	fh_set_item(&fh.L, L_T_PROMISE_CAPABILITY, T_CAPABILITY);
	fh_set_item(&fh.L, L_T_ASYNC_GENERATOR_REQUEST, T_REQUEST);
	fh_set_item(&fh.L, L_JSRECEIVER_PROPERTIES, 8);
	static const char *const names[] = {
	    "RecordWrite", "AsyncFunctionAwaitResolveClosure", "PromiseAllResolveElementClosure",
	    "PromiseAllSettledResolveElementClosure", "PromiseAnyRejectElementClosure",
	    "PromiseCapabilityDefaultResolve", "ArrayPrototypeMap",
	};
	memset(&ids, 0, sizeof(ids));
	builtin_ids_from_names(&ids, names, sizeof(names) / sizeof(names[0]));
	undefined = fh_oddball(&fh, 5);
}

static void teardown(void)
{
	builtin_ids_free(&ids);
	fh_free(&fh);
}

TestSuite(async_chain, .init = setup, .fini = teardown);

static const struct v8_layout *L(void) { return &fh.L; }

/* A JSFunction whose SharedFunctionInfo holds builtin id `id` (-1: user code, a BytecodeArray
 * pointer there), with context ctx. */
static uint64_t closure(int id, uint64_t ctx)
{
	uint64_t sfi = fh_obj(&fh, FT_SFI, 64);
	fh_set(&fh, sfi, L()->v[L_SFI_BUILTIN_ID], id >= 0 ? fh_smi(id) : fh_obj(&fh, FT_FIXED_ARRAY, 16));
	uint64_t f = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, f, L()->v[L_JSFUNC_SHARED], sfi);
	fh_set(&fh, f, L()->v[L_JSFUNC_CONTEXT], ctx);
	fh_set(&fh, f, L()->v[L_JSRECEIVER_PROPERTIES], fh_smi(0));
	return f;
}

static uint64_t context(uint64_t slot2, uint64_t slot3)
{
	uint64_t c = fh_obj(&fh, T_CONTEXT, 16 + 8 * 5);
	fh_set(&fh, c, 8, fh_smi(5));
	fh_set(&fh, c, 16 + 16, slot2);
	fh_set(&fh, c, 16 + 24, slot3);
	return c;
}

static uint64_t promise(int status)
{
	uint64_t p = fh_obj(&fh, T_PROMISE, 48);
	fh_set(&fh, p, L()->v[L_JSPROMISE_REACTIONS], fh_smi(0));
	fh_set(&fh, p, L()->v[L_JSPROMISE_FLAGS], fh_smi(status | 4));
	return p;
}

/* p's one reaction (appended as the only one). */
static uint64_t react(uint64_t p, uint64_t fulfill, uint64_t reject, uint64_t promise_or_capability)
{
	uint64_t r = fh_obj(&fh, T_REACTION, 48);
	fh_set(&fh, r, L()->v[L_REACTION_NEXT], fh_smi(0));
	fh_set(&fh, r, L()->v[L_REACTION_FULFILL], fulfill);
	fh_set(&fh, r, L()->v[L_REACTION_REJECT], reject);
	fh_set(&fh, r, L()->v[L_REACTION_PROMISE], promise_or_capability);
	fh_set(&fh, p, L()->v[L_JSPROMISE_REACTIONS], r);
	return r;
}

/* An async function's generator object with its own promise, suspended at state `cont`. */
static uint64_t async_fn(int cont, uint64_t *own_promise)
{
	uint64_t g = fh_obj(&fh, T_ASYNC_FN, 88);
	fh_set(&fh, g, L()->v[L_JSGEN_FUNCTION], closure(-1, context(undefined, undefined)));
	fh_set(&fh, g, L()->v[L_JSGEN_CONTEXT], context(undefined, undefined));
	fh_set(&fh, g, L()->v[L_JSGEN_RECEIVER], undefined);
	fh_set(&fh, g, L()->v[L_JSGEN_INPUT_OR_DEBUG_POS], fh_smi(cont >= 0 ? 83 : 7));
	fh_set(&fh, g, L()->v[L_JSGEN_CONTINUATION], fh_smi(cont));
	*own_promise = promise(0);
	fh_set(&fh, g, L()->v[L_JSASYNC_PROMISE], *own_promise);
	return g;
}

/* An await by generator g of promise p. */
static void await_(uint64_t p, uint64_t g)
{
	uint64_t c = closure(ID_AWAIT, context(g, undefined));
	react(p, c, closure(ID_AWAIT, context(g, undefined)), undefined);
}

static struct async_walk walk(struct async_trail *t)
{
	return (struct async_walk){.h = &fh.h, .ids = &ids, .trail = t};
}

Test(async_chain, plain_await_chain_ends_where_nobody_awaits)
{
	uint64_t p1, p2, p3;
	uint64_t running = async_fn(-2, &p1);
	uint64_t mid = async_fn(0, &p2);
	uint64_t top = async_fn(3, &p3);
	await_(p1, mid);
	await_(p2, top);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	int n = async_chain_of_generator(&w, running, f, 8, &end);
	cr_assert_eq(n, 2);
	cr_assert_eq(end, AE_NOBODY);
	cr_assert_eq(f[0].generator, mid);
	cr_assert_eq(f[1].generator, top);
	cr_assert_eq(f[0].kind, AF_FUNCTION);
	cr_assert_eq(f[0].suspend_pos, 83);
	uint64_t fn;
	memcpy(&fn, fh_ptr(&fh, mid - 1 + (uint64_t)L()->v[L_JSGEN_FUNCTION]), 8);
	cr_assert_eq(f[0].function, fn);
}

Test(async_chain, combinators_emit_their_element_and_follow_the_capability)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t user = async_fn(1, &p2);
	/* Promise.all([…, running()]): element index 1 (identity hash 2) resolves the capability */
	uint64_t all = promise(0);
	await_(all, user);
	uint64_t cap = fh_obj(&fh, T_CAPABILITY, 32);
	fh_set(&fh, cap, L()->v[L_CAPABILITY_PROMISE], all);
	uint64_t elem = closure(ID_ALL, context(fh_smi(1), cap));
	fh_set(&fh, elem, 8, fh_smi(2));
	react(p1, elem, closure(ID_OTHER, undefined), undefined);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	int n = async_chain_of_generator(&w, running, f, 8, &end);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].kind, AF_ALL);
	cr_assert_eq(f[0].index, 1);
	cr_assert_eq(f[1].generator, user);
	/* the same with Promise.any: the fulfill handler is the capability's own resolve, the reject
	 * handler the element (asked first, as V8 does) */
	uint64_t any_elem = closure(ID_ANY, context(fh_smi(1), cap));
	fh_set(&fh, any_elem, 8, fh_smi(1));
	react(p1, closure(ID_DEFAULT_RESOLVE, context(all, undefined)), any_elem, undefined);
	n = async_chain_of_generator(&w, running, f, 8, &end);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].kind, AF_ANY);
	cr_assert_eq(f[0].index, 0);
}

Test(async_chain, race_and_generic_reactions_continue_without_a_frame)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t user = async_fn(0, &p2);
	/* Promise.race: the capability's default resolve, whose context holds the race's promise */
	uint64_t race = promise(0);
	react(p1, closure(ID_DEFAULT_RESOLVE, context(race, undefined)), closure(ID_OTHER, undefined), undefined);
	/* the race's promise: a user .then callback, whose derived promise is held by a capability */
	uint64_t derived = promise(0);
	uint64_t cap = fh_obj(&fh, T_CAPABILITY, 32);
	fh_set(&fh, cap, L()->v[L_CAPABILITY_PROMISE], derived);
	react(race, closure(-1, undefined), undefined, cap);
	await_(derived, user);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	int n = async_chain_of_generator(&w, running, f, 8, &end);
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].generator, user);
	cr_assert_eq(end, AE_NOBODY);
}

Test(async_chain, an_async_generator_continues_with_its_first_request)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t gen = fh_obj(&fh, T_ASYNC_GEN, 96);
	uint64_t unused;
	uint64_t consumer = async_fn(2, &unused);
	fh_set(&fh, gen, L()->v[L_JSGEN_FUNCTION], closure(-1, undefined));
	fh_set(&fh, gen, L()->v[L_JSGEN_RECEIVER], undefined);
	fh_set(&fh, gen, L()->v[L_JSGEN_INPUT_OR_DEBUG_POS], fh_smi(90));
	fh_set(&fh, gen, L()->v[L_JSGEN_CONTINUATION], fh_smi(1));
	uint64_t req = fh_obj(&fh, T_REQUEST, 40);
	p2 = promise(0);
	fh_set(&fh, req, L()->v[L_AGR_PROMISE], p2);
	fh_set(&fh, gen, L()->v[L_JSASYNCGEN_QUEUE], req);
	await_(p1, gen);
	await_(p2, consumer);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	int n = async_chain_of_generator(&w, running, f, 8, &end);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].generator, gen);
	cr_assert_eq(f[1].generator, consumer);
}

Test(async_chain, where_v8_stops_the_walk_stops)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t other = async_fn(0, &p2);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	/* settled */
	fh_set(&fh, p1, L()->v[L_JSPROMISE_FLAGS], fh_smi(1));
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 0);
	cr_assert_eq(end, AE_SETTLED);
	/* two reactions */
	fh_set(&fh, p1, L()->v[L_JSPROMISE_FLAGS], fh_smi(0));
	uint64_t r = react(p1, closure(ID_AWAIT, context(other, undefined)), undefined, undefined);
	fh_set(&fh, r, L()->v[L_REACTION_NEXT], fh_obj(&fh, T_REACTION, 48));
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 0);
	cr_assert_eq(end, AE_SEVERAL);
	/* an await closure of a function that is running, not suspended: not a chain V8 has */
	fh_set(&fh, r, L()->v[L_REACTION_NEXT], fh_smi(0));
	fh_set(&fh, other, L()->v[L_JSGEN_CONTINUATION], fh_smi(-2));
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 0);
	cr_assert_eq(end, AE_BAD);
	/* a user handler with nothing to settle (an await's own reaction): the end */
	fh_set(&fh, r, L()->v[L_REACTION_FULFILL], closure(-1, undefined));
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 0);
	cr_assert_eq(end, AE_OTHER);
}

Test(async_chain, a_forwarding_address_is_a_move_not_a_type)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t mid = async_fn(0, &p2);
	await_(p1, mid);
	/* a scavenge moved the awaiting generator: its map word is its new address, untagged */
	fh_set(&fh, mid, 0, 0x7700000);
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(NULL);
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 0);
	cr_assert_eq(end, AE_MOVED);
	cr_assert(w.moved);
}

Test(async_chain, a_cycle_is_bounded)
{
	uint64_t p1, p2;
	uint64_t a = async_fn(0, &p1);
	uint64_t b = async_fn(0, &p2);
	await_(p1, b);
	await_(p2, a);
	struct async_frame f[4];
	enum async_end end;
	struct async_walk w = walk(NULL);
	cr_assert_eq(async_chain_of_generator(&w, a, f, 4, &end), 4);
	cr_assert_eq(end, AE_LIMIT);
	/* a cycle of plain promises, no frames at all, ends too */
	uint64_t x = promise(0), y = promise(0);
	react(x, closure(-1, undefined), undefined, y);
	react(y, closure(-1, undefined), undefined, x);
	cr_assert_eq(async_chain_from_promise(&w, x, f, 4, &end), 0);
	cr_assert_eq(end, AE_LIMIT);
}

Test(async_chain, a_trail_read_again_tells_a_changed_chain)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t mid = async_fn(0, &p2);
	await_(p1, mid);
	struct async_trail t = {.n = 0};
	struct async_frame f[8];
	enum async_end end;
	struct async_walk w = walk(&t);
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 1);
	cr_assert_gt(t.n, 8);
	cr_assert(async_trail_holds(&t, &fh.base));
	/* the awaiter ran on: its continuation is another suspend point */
	fh_set(&fh, mid, L()->v[L_JSGEN_CONTINUATION], fh_smi(4));
	cr_assert_not(async_trail_holds(&t, &fh.base));
	t.overflow = true;
	fh_set(&fh, mid, L()->v[L_JSGEN_CONTINUATION], fh_smi(0));
	cr_assert_not(async_trail_holds(&t, &fh.base));
}

/* The site of a stack that resumed generator g: the await closure's frame, under a typed frame. */
static struct async_site await_site(uint64_t g)
{
	uint64_t ctx = context(g, undefined);
	struct async_site site = {.nframes = 2, .fn = {0, closure(ID_AWAIT, ctx)}, .ctx = {0, ctx}};
	return site;
}

Test(async_chain, a_live_chain_is_walked_again_only_when_a_word_of_it_changed)
{
	uint64_t p1, p2, p3, p4;
	uint64_t running = async_fn(-2, &p1);
	uint64_t mid = async_fn(0, &p2);
	uint64_t top = async_fn(3, &p3);
	await_(p1, mid);
	await_(p2, top);
	struct async_frames a;
	async_frames_init(&a);
	a.ids = ids;
	a.live = &fh.base;
	struct async_site site = await_site(running);
	static struct async_frame f[ASYNC_MAX_FRAMES];
	enum async_outcome how;
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(async_frames_check(&a, how, 2), AO_CHAIN);
	cr_assert_eq(a.st.reused, 0);
	unsigned long walked = a.st.reads;
	/* the next sample resumed by the same closure: the same chain, not walked */
	memset(f, 0, sizeof(f));
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(how, AO_CHAIN);
	cr_assert_eq(a.st.reused, 1);
	cr_assert_eq(a.st.reads, walked);
	cr_assert_eq(f[0].generator, mid);
	cr_assert_eq(f[1].generator, top);
	cr_assert_eq(f[0].suspend_pos, 83);
	/* its frames were named, and then the chain ran on: the check reads it again and sees that */
	fh_set(&fh, mid, L()->v[L_JSGEN_CONTINUATION], fh_smi(4));
	cr_assert_eq(async_frames_check(&a, how, 2), AO_CHANGED);
	fh_set(&fh, mid, L()->v[L_JSGEN_CONTINUATION], fh_smi(0));
	/* a caller now awaits top: a word the walk read changed, so it walks again and finds it */
	uint64_t outer = async_fn(1, &p4);
	await_(p3, outer);
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 3);
	cr_assert_eq(a.st.reused, 1);
	cr_assert_gt(a.st.reads, walked);
	cr_assert_eq(f[2].generator, outer);
	cr_assert_eq(async_frames_check(&a, how, 3), AO_CHAIN);
	/* the closure's context is no longer the stack's (the function object was reused): a word of
	 * the site's own changed, so its chain cannot be told */
	uint64_t ctx = site.ctx[1];
	fh_set(&fh, site.fn[1], L()->v[L_JSFUNC_CONTEXT], context(mid, undefined));
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 0);
	cr_assert_eq(how, AO_CHANGED);
	fh_set(&fh, site.fn[1], L()->v[L_JSFUNC_CONTEXT], ctx);
	/* another stack (a closure resuming mid) is walked; so is every chain of frozen memory */
	struct async_site other = await_site(mid);
	cr_assert_eq(async_site_chain(&a, &fh.h, &other, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(f[0].generator, top);
	cr_assert_eq(async_site_chain(&a, &fh.h, &other, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(a.st.reused, 2);
	a.live = NULL;
	cr_assert_eq(async_site_chain(&a, &fh.h, &other, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(async_site_chain(&a, &fh.h, &other, f, ASYNC_MAX_FRAMES, &how), 2);
	cr_assert_eq(a.st.reused, 2);
	memset(&a.ids, 0, sizeof(a.ids)); /* (the suite's) */
	async_frames_free(&a);
}

Test(async_chain, a_callback_site_starts_at_the_pending_promise_in_its_jobs_slots)
{
	uint64_t p1, p2;
	uint64_t mid = async_fn(0, &p2);
	uint64_t p = promise(0);
	await_(p, mid);
	(void)async_fn(3, &p1);
	struct async_frames a;
	async_frames_init(&a);
	a.ids = ids;
	/* a user callback's frame, then the job's slots: a Smi, a settled promise's place taken by
	 * the pending one */
	struct async_site site = {.nframes = 1, .fn = {closure(-1, context(undefined, undefined))},
				  .nslots = 3, .slot = {fh_smi(1), p, undefined}};
	site.ctx[0] = context(undefined, undefined);
	fh_set(&fh, site.fn[0], L()->v[L_JSFUNC_CONTEXT], site.ctx[0]);
	static struct async_frame f[ASYNC_MAX_FRAMES];
	enum async_outcome how;
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 1);
	cr_assert_eq(how, AO_CHAIN);
	cr_assert_eq(f[0].generator, mid);
	/* the promise settled before it was read: no chain can be told */
	fh_set(&fh, p, L()->v[L_JSPROMISE_FLAGS], fh_smi(1 | 4));
	cr_assert_eq(async_site_chain(&a, &fh.h, &site, f, ASYNC_MAX_FRAMES, &how), 0);
	cr_assert_eq(how, AO_CHANGED);
	memset(&a.ids, 0, sizeof(a.ids));
	async_frames_free(&a);
}

Test(async_chain, closures_without_a_table_of_names)
{
	uint64_t p1, p2;
	uint64_t running = async_fn(-2, &p1);
	uint64_t mid = async_fn(0, &p2);
	await_(p1, mid);
	struct builtin_ids none = {0};
	struct async_walk w = {.h = &fh.h, .ids = &none};
	struct async_frame f[8];
	enum async_end end;
	/* an await closure is known by its context alone */
	cr_assert_eq(async_chain_of_generator(&w, running, f, 8, &end), 1);
	cr_assert_eq(f[0].generator, mid);
}
