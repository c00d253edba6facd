/* test_map_types.c — root maps' types are read once; maps of JavaScript objects every time. */
#include <criterion/criterion.h>

#include "../../v8/map_types.h"
#include "fake_heap.h"

Test(map_types, root_maps_are_read_once_js_maps_always)
{
	struct fake_heap fh;
	fh_init(&fh);
	struct map_types mt;
	map_types_init(&mt);
	struct v8_heap h = fh.h;
	h.types = &mt;
	uint64_t str = fh_str1(&fh, "name"), sfi = fh_obj(&fh, FT_SFI, 64);
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	cr_assert_eq(v8_type(&h, str), FT_SEQ_ONE);
	cr_assert_eq(v8_type(&h, sfi), FT_SFI);
	cr_assert_eq(v8_type(&h, fn), FT_JSFUNCTION);
	unsigned long reads = fh.reads;
	cr_assert_eq(v8_type(&h, str), FT_SEQ_ONE);
	cr_assert_eq(v8_type(&h, sfi), FT_SFI);
	cr_assert_eq(fh.reads - reads, 2, "only the objects' map words are read again");
	cr_assert_eq(mt.hits, 2);
	reads = fh.reads;
	cr_assert_eq(v8_type(&h, fn), FT_JSFUNCTION);
	cr_assert_eq(fh.reads - reads, 2, "a JSFunction's map is read every time");
	map_types_free(&mt);
	fh_free(&fh);
}
