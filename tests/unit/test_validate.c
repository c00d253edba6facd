/* test_validate.c — a decode that runs after the thread resumed is kept only if the objects
 * copied at the stop still hold the same identity: checked over a synthetic heap whose "live"
 * contents change after the copy, as a GC that moves or rewrites objects would change them. */
#include <criterion/criterion.h>

#include "../../mem/memsnap.h"
#include "../../walker/prefetch.h"
#include "../../walker/validate.h"
#include "fake_heap.h"

static struct fake_heap fh;
static struct memsnap copy;
static struct prefetched pf;
static uint64_t sfi, fn, name;

static void setup(void)
{
	fh_init(&fh);
	name = fh_str1(&fh, "measure");
	sfi = fh_obj(&fh, FT_SFI, 64);
	fh_set(&fh, sfi, fh.L.v[L_SFI_NAME], name);
	fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, fh.L.v[L_JSFUNC_SHARED], sfi);
	/* what a stop copies: the function and its SharedFunctionInfo, and their maps */
	memsnap_init(&copy, &fh.base, 1 << 20);
	uint64_t addrs[2] = {fn - 1, sfi - 1};
	uint32_t lens[2] = {64, 64};
	memsnap_prefetch(&copy, addrs, lens, 2);
	pf.n = 2;
	pf.obj[0] = fn - 1;
	pf.kind[0] = PF_FUNCTION;
	pf.obj[1] = sfi - 1;
	pf.kind[1] = PF_DETAIL;
}

static void teardown(void)
{
	memsnap_free(&copy);
	fh_free(&fh);
}

TestSuite(validate, .init = setup, .fini = teardown);

Test(validate, unchanged_objects_validate)
{
	struct validation v = {0};
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, NULL, 0, &v));
	cr_assert_eq(v.checked, 1, "the SharedFunctionInfo is checked; the function is not");
	cr_assert_eq(v.changed, 0);
}

Test(validate, a_moved_name_is_detected)
{
	/* a GC moved the name: the SharedFunctionInfo now points elsewhere */
	fh_set(&fh, sfi, fh.L.v[L_SFI_NAME], fh_str1(&fh, "measure"));
	struct validation v = {0};
	cr_assert_not(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, NULL, 0, &v));
	cr_assert_eq(v.changed, 1);
}

Test(validate, only_the_listed_objects_are_compared)
{
	/* the name moved; a decode whose frames did not read through this SharedFunctionInfo (it is
	 * not listed) is not failed by it, one whose frames did is */
	fh_set(&fh, sfi, fh.L.v[L_SFI_NAME], fh_str1(&fh, "measure"));
	uint64_t other = fn - 1, mine = sfi - 1;
	struct validation v = {0};
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &other, 1, &v));
	cr_assert_eq(v.checked, 0);
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &other, 0, &v),
		  "an empty list compares nothing");
	cr_assert_not(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &mine, 1, &v));
	cr_assert_eq(v.checked, 1);
	cr_assert_eq(v.changed, 1);
	cr_assert_eq(v.runs, 3);
}

Test(validate, a_moved_shared_function_info_is_detected)
{
	/* the SharedFunctionInfo was evacuated: its old address holds a forwarding word */
	fh_set(&fh, sfi, fh.L.v[L_HEAPOBJECT_MAP], 0x12345678);
	struct validation v = {0};
	cr_assert_not(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, NULL, 0, &v));
}

Test(validate, a_young_function_that_moved_does_not_invalidate)
{
	/* a scavenge moved the JSFunction: only its copy was read, so the frame stays valid */
	fh_set(&fh, fn, fh.L.v[L_HEAPOBJECT_MAP], 0x12345678);
	struct validation v = {0};
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, NULL, 0, &v));
}

/* After the stop, a scavenge moved the function: where its map was, V8 left the forwarding
 * address (the new copy's address, untagged: MapWord::FromForwardingAddress) */
Test(validate, moved_function_or_receiver_is_seen)
{
	static struct v8_runtime rt;
	rt.L = fh.L;
	struct memsnap after;
	memsnap_init(&after, &fh.base, 1 << 20);
	uint64_t recv = fh_obj(&fh, FT_JSFUNCTION, 64);
	struct prefetched p = {.n = 1, .obj = {fn - 1}, .kind = {PF_FUNCTION}, .nreceivers = 1,
			       .receivers = {recv - 1}};
	cr_assert_not(prefetched_moved(&rt, &after.base, &p), "in place: not moved");
	uint64_t copy_of_fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, fh.L.v[L_HEAPOBJECT_MAP], copy_of_fn - 1);
	memsnap_reset(&after);
	cr_assert(prefetched_moved(&rt, &after.base, &p), "the function was moved");
	p.n = 0;
	cr_assert_not(prefetched_moved(&rt, &after.base, &p), "only the receiver is asked now");
	fh_set(&fh, recv, fh.L.v[L_HEAPOBJECT_MAP], copy_of_fn - 1);
	memsnap_reset(&after);
	cr_assert(prefetched_moved(&rt, &after.base, &p), "the receiver was moved");
	p.nreceivers = 0;
	p.n = 1;
	p.kind[0] = PF_BYTECODE;
	cr_assert_not(prefetched_moved(&rt, &after.base, &p),
		      "a bytecode-array slot is not asked (old space; in optimized frames a spill slot)");
	cr_assert_not(prefetched_moved(NULL, &after.base, &p), "no V8: nothing to ask");
	memsnap_free(&after);
}
