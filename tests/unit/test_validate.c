/* test_validate.c — a decode that runs after the thread resumed is kept only if the objects
 * copied at the stop still hold the same identity: checked over a synthetic heap whose "live"
 * contents change after the copy, as a GC that moves or rewrites objects would change them. */
#include <criterion/criterion.h>

#include "../../mem/memsnap.h"
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
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &v));
	cr_assert_eq(v.checked, 1, "the SharedFunctionInfo is checked; the function is not");
	cr_assert_eq(v.changed, 0);
}

Test(validate, a_moved_name_is_detected)
{
	/* a GC moved the name: the SharedFunctionInfo now points elsewhere */
	fh_set(&fh, sfi, fh.L.v[L_SFI_NAME], fh_str1(&fh, "measure"));
	struct validation v = {0};
	cr_assert_not(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &v));
	cr_assert_eq(v.changed, 1);
}

Test(validate, a_moved_shared_function_info_is_detected)
{
	/* the SharedFunctionInfo was evacuated: its old address holds a forwarding word */
	fh_set(&fh, sfi, fh.L.v[L_HEAPOBJECT_MAP], 0x12345678);
	struct validation v = {0};
	cr_assert_not(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &v));
}

Test(validate, a_young_function_that_moved_does_not_invalidate)
{
	/* a scavenge moved the JSFunction: only its copy was read, so the frame stays valid */
	fh_set(&fh, fn, fh.L.v[L_HEAPOBJECT_MAP], 0x12345678);
	struct validation v = {0};
	cr_assert(validate_prefetched(&fh.L, NULL, &copy.base, &fh.base, &pf, &v));
}
