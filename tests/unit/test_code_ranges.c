/* test_code_ranges.c — the code cache's ranges by start (v8/code_ranges.c): every range holding a
 * pc is offered, highest start first, overlapping ones too (a stale entry under a live one); a
 * removed range is not offered again and the others keep their places; nothing below the largest
 * range's reach is offered; a range whose end would wrap the address space holds up to its top. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "../../v8/code_ranges.h"

/* The slots code_ranges_next offers for pc, in order, into out (at most max); their count. */
static int offered(const struct code_ranges *r, uint64_t pc, long *out, int max)
{
	size_t it = CODE_RANGES_FIRST;
	int n = 0;
	for (long s; n < max && (s = code_ranges_next(r, pc, &it)) >= 0;)
		out[n++] = s;
	return n;
}

Test(code_ranges, every_range_holding_a_pc_highest_start_first)
{
	struct code_ranges r = {0};
	code_ranges_insert(&r, 0x3000, 0x100, 7);
	code_ranges_insert(&r, 0x1000, 0x100, 3);
	code_ranges_insert(&r, 0x2000, 0x2000, 5); /* reaches over 0x3000's */
	code_ranges_insert(&r, 0x5000, 0x10, 9);
	long s[8];
	cr_assert_eq(offered(&r, 0x1050, s, 8), 1);
	cr_assert_eq(s[0], 3);
	cr_assert_eq(offered(&r, 0x3010, s, 8), 2, "the one starting there, then the one reaching over it");
	cr_assert_eq(s[0], 7);
	cr_assert_eq(s[1], 5);
	cr_assert_eq(offered(&r, 0x3100, s, 8), 1, "past the small one's end: the big one only");
	cr_assert_eq(s[0], 5);
	cr_assert_eq(offered(&r, 0x1100, s, 8), 0, "an end is outside its range");
	cr_assert_eq(offered(&r, 0xfff, s, 8), 0, "below every start");
	cr_assert_eq(offered(&r, 0x4fff, s, 8), 0, "between ranges");
	cr_assert_eq(offered(&r, 0x500f, s, 8), 1);
	code_ranges_free(&r);
}

Test(code_ranges, a_removed_range_is_gone_and_the_others_stay)
{
	struct code_ranges r = {0};
	for (uint32_t i = 0; i < 1000; i++) /* grown past its first allocation */
		code_ranges_insert(&r, 0x100000 + (uint64_t)i * 0x40, 0x40, i);
	code_ranges_insert(&r, 0x100000 + 10 * 0x40, 0x40, 5000); /* same start as slot 10 */
	long s[8];
	cr_assert_eq(offered(&r, 0x100000 + 10 * 0x40 + 1, s, 8), 2);
	code_ranges_remove(&r, 0x100000 + 10 * 0x40, 10);
	cr_assert_eq(offered(&r, 0x100000 + 10 * 0x40 + 1, s, 8), 1);
	cr_assert_eq(s[0], 5000, "the other range at that start stays");
	code_ranges_remove(&r, 0x100000 + 10 * 0x40, 10); /* not held any more: nothing */
	code_ranges_remove(&r, 0x999, 1);                 /* never held */
	cr_assert_eq(r.n, 1000);
	for (uint32_t i = 0; i < 1000; i++) {
		if (i == 10)
			continue;
		cr_assert_eq(offered(&r, 0x100000 + (uint64_t)i * 0x40 + 0x3f, s, 8), 1, "range %u", i);
		cr_assert_eq(s[0], (long)i);
	}
	code_ranges_free(&r);
	cr_assert_eq(r.n, 0);
}

Test(code_ranges, a_stale_range_dropped_while_offering_leaves_the_rest_to_offer)
{
	struct code_ranges r = {0};
	code_ranges_insert(&r, 0x1000, 0x1000, 1);
	code_ranges_insert(&r, 0x1800, 0x100, 2);
	code_ranges_insert(&r, 0x1400, 0x1000, 3);
	size_t it = CODE_RANGES_FIRST;
	cr_assert_eq(code_ranges_next(&r, 0x1810, &it), 2);
	code_ranges_remove(&r, 0x1800, 2); /* what code.c does when the offered one is stale */
	cr_assert_eq(code_ranges_next(&r, 0x1810, &it), 3);
	cr_assert_eq(code_ranges_next(&r, 0x1810, &it), 1);
	cr_assert_eq(code_ranges_next(&r, 0x1810, &it), -1);
	code_ranges_free(&r);
}

Test(code_ranges, a_range_at_the_top_of_the_address_space)
{
	struct code_ranges r = {0};
	code_ranges_insert(&r, UINT64_MAX - 0xff, 0x1000, 4); /* its end would wrap */
	long s[2];
	cr_assert_eq(offered(&r, UINT64_MAX - 1, s, 2), 1);
	cr_assert_eq(offered(&r, 0x10, s, 2), 0);
	code_ranges_free(&r);
}
