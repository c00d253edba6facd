/* test_memsnap.c — the per-sample memory copy: reads inside copied ranges never reach the backing
 * source, batched prefetches fill many ranges at once, misses are kept, and the byte budget holds. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../mem/memsnap.h"
#include "fake_heap.h"

static struct fake_heap fh;

static void setup(void)
{
	fh_init(&fh);
}

static void teardown(void)
{
	fh_free(&fh);
}

TestSuite(memsnap, .init = setup, .fini = teardown);

Test(memsnap, copied_ranges_are_served_locally)
{
	uint64_t a = fh_raw(&fh, "0123456789abcdef0123456789abcdef", 32);
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1 << 20);
	cr_assert_eq(memsnap_add(&s, a, 32), 32);
	unsigned long before = fh.reads;
	char buf[8];
	cr_assert(mem_read(&s.base, a + 4, buf, 8));
	cr_assert_eq(memcmp(buf, "456789ab", 8), 0);
	cr_assert_eq(fh.reads, before, "served from the copy");
	/* a miss goes to the backing source once, then it is kept */
	uint64_t b = fh_raw(&fh, "ZYXWVUTS", 8);
	cr_assert(mem_read(&s.base, b, buf, 8));
	cr_assert(mem_read(&s.base, b, buf, 8));
	cr_assert_eq(fh.reads, before + 1);
	memsnap_free(&s);
}

Test(memsnap, reads_after_the_late_mark_are_counted_late)
{
	uint64_t a = fh_raw(&fh, "0123456789abcdef", 16);
	fh_alloc(&fh, 3 * 4096); /* b on another page than a's copy */
	uint64_t b = fh_raw(&fh, "ZYXWVUTS", 8);
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1 << 20);
	uint64_t addr = a;
	uint32_t len = 16;
	memsnap_prefetch(&s, &addr, &len, 1);
	char buf[8];
	cr_assert(mem_read(&s.base, a, buf, 8));
	cr_assert_eq(s.late_reads, 0, "no mark: nothing is late");
	memsnap_mark_late(&s);
	cr_assert(mem_read(&s.base, a + 8, buf, 8));
	cr_assert_eq(s.late_reads, 0, "served by what was copied before the mark");
	cr_assert(mem_read(&s.base, b, buf, 8));
	cr_assert_eq(s.late_reads, 1, "a read of the target after the mark");
	cr_assert(mem_read(&s.base, b, buf, 8));
	cr_assert_eq(s.late_reads, 2, "served by what that read copied: late too");
	memsnap_reset(&s);
	memsnap_add(&s, b, 8);
	cr_assert(mem_read(&s.base, b, buf, 8));
	cr_assert_eq(s.late_reads, 0, "a new snapshot has no mark");
	memsnap_free(&s);
}

Test(memsnap, prefetch_fills_many_ranges_and_skips_held_ones)
{
	uint64_t addr[4];
	uint32_t len[4] = {16, 16, 16, 16};
	for (int i = 0; i < 4; i++)
		addr[i] = fh_raw(&fh, "ABCDEFGHIJKLMNOP", 16);
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1 << 20);
	cr_assert_eq(memsnap_prefetch(&s, addr, len, 4), 4);
	unsigned long before = fh.reads;
	for (int i = 0; i < 4; i++)
		cr_assert_not_null(memsnap_find(&s, addr[i] + 3, 8));
	cr_assert_eq(memsnap_prefetch(&s, addr, len, 4), 0, "already held");
	cr_assert_eq(fh.reads, before);
	/* an unreadable range is simply not held */
	uint64_t bad[1] = {0x10};
	cr_assert_eq(memsnap_prefetch(&s, bad, len, 1), 0);
	cr_assert_null(memsnap_find(&s, 0x10, 8));
	memsnap_free(&s);
}

Test(memsnap, budget_is_respected)
{
	uint64_t a = fh_alloc(&fh, 4096) - 1;
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1024);
	cr_assert_eq(memsnap_add(&s, a, 4096), 0, "over budget: not copied");
	char buf[16];
	cr_assert(mem_read(&s.base, a, buf, 16), "still readable through the backing source");
	memsnap_reset(&s);
	cr_assert_eq(s.used, 0);
	memsnap_free(&s);
}

/* A page a read found unreadable is not asked again in the same snapshot (a spill slot that looks
 * like a pointer was a remote read per look); the next snapshot asks again. */
Test(memsnap, an_unreadable_page_is_asked_once_per_snapshot)
{
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1 << 20);
	uint64_t bad = 0x7000010;
	char buf[8];
	unsigned long before = fh.reads;
	cr_assert_not(mem_read(&s.base, bad, buf, 8));
	unsigned long once = fh.reads - before;
	cr_assert_geq(once, 1);
	cr_assert_not(mem_read(&s.base, bad + 64, buf, 8), "same page");
	uint32_t len[1] = {64};
	uint64_t addr[1] = {bad + 128};
	cr_assert_eq(memsnap_prefetch(&s, addr, len, 1), 0);
	cr_assert_eq(fh.reads - before, once, "no read after the first in that page");
	/* a readable object elsewhere is still read */
	uint64_t good = fh_raw(&fh, "ABCDEFGH", 8);
	cr_assert(mem_read(&s.base, good, buf, 8));
	memsnap_reset(&s);
	before = fh.reads;
	cr_assert_not(mem_read(&s.base, bad, buf, 8));
	cr_assert_geq(fh.reads - before, 1, "a new snapshot asks again");
	memsnap_free(&s);
}

/* What a copy holds is the stop's truth: a read that starts below a stack copied at the stop (the
 * word under sp) and one that runs past the end of what was copied take the held bytes from the
 * copy, and what they read of the target (which has run on, its stack changed) never shadows it
 * (measured: a read-ahead from sp-8 served the frames above sp from the live stack, and a JIT
 * frame's slots read garbage). Prefetched ranges stop where a held one begins, too. */
Test(memsnap, a_copy_is_never_shadowed_by_a_later_read_of_the_target)
{
	uint64_t stack = fh_raw(&fh, "aaaaaaaabbbbbbbbccccccccdddddddd", 32); /* the live stack */
	struct memsnap s;
	memsnap_init(&s, &fh.base, 1 << 20);
	/* the stop's copy of [stack+8, stack+24): what the stack held then */
	memsnap_put(&s, stack + 8, "BBBBBBBBCCCCCCCC", 16);
	char buf[32];
	cr_assert(mem_read(&s.base, stack, buf, 16), "a read from below the copy into it");
	cr_assert_eq(memcmp(buf, "aaaaaaaaBBBBBBBB", 16), 0, "%.16s", buf);
	cr_assert(mem_read(&s.base, stack + 8, buf, 16), "the copy, after a read of the target below it");
	cr_assert_eq(memcmp(buf, "BBBBBBBBCCCCCCCC", 16), 0, "%.16s", buf);
	cr_assert(mem_read(&s.base, stack + 16, buf, 16), "a read from the copy past its end");
	cr_assert_eq(memcmp(buf, "CCCCCCCCdddddddd", 16), 0, "%.16s", buf);
	cr_assert(mem_read(&s.base, stack, buf, 32), "the whole of it: pieces from both");
	cr_assert_eq(memcmp(buf, "aaaaaaaaBBBBBBBBCCCCCCCCdddddddd", 32), 0, "%.32s", buf);
	cr_assert(mem_read(&s.base, stack + 12, buf, 8), "the copy still serves its own bytes");
	cr_assert_eq(memcmp(buf, "BBBBCCCC", 8), 0, "%.8s", buf);
	/* a prefetch over the copy reads only what it does not hold */
	memsnap_reset(&s);
	memsnap_put(&s, stack + 8, "BBBBBBBBCCCCCCCC", 16);
	uint64_t addr[1] = {stack};
	uint32_t len[1] = {32};
	memsnap_prefetch(&s, addr, len, 1);
	cr_assert(mem_read(&s.base, stack + 8, buf, 16));
	cr_assert_eq(memcmp(buf, "BBBBBBBBCCCCCCCC", 16), 0, "%.16s", buf);
	cr_assert(mem_read(&s.base, stack, buf, 32));
	cr_assert_eq(memcmp(buf, "aaaaaaaaBBBBBBBBCCCCCCCCdddddddd", 32), 0, "%.32s", buf);
	memsnap_free(&s);
}
