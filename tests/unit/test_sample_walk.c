/* test_sample_walk.c — walking an eBPF sample record (bpf/sample_walk.c) through the real walker:
 * registers in pt_regs order, the stack memory the kernel captured as ranges, and the fence that
 * keeps the walk from reading the thread's stack as it is now (it has moved on since the sample:
 * reading it would invent frames). The "target" is a synthetic memory (fake_heap.h) whose stack
 * is changed after the record is made. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../bpf/sample_walk.h"
#include "../../mem/memsrc_fence.h"
#include "fake_heap.h"

static struct fake_heap fh;
static struct intern names;
static struct addrspace as;
static struct stackwalk sw;
static struct sample_walker w;
static uint64_t stack_lo, stack_hi;

enum { STACK_SIZE = 16384, CODE = 0x7000000 };

static void add_mapping(uint64_t start, uint64_t end, uint32_t prot, const char *path)
{
	struct mapping m = {.start = start, .end = end, .prot = prot, .path = (char *)path};
	maps_add(&as.maps, &m);
}

static void setup(void)
{
	fh_init(&fh);
	intern_init(&names);
	stack_lo = fh_alloc(&fh, STACK_SIZE) - 1;
	stack_hi = stack_lo + STACK_SIZE;
	addrspace_init(&as, 0, "");
	add_mapping(CODE, CODE + 0x100000, MAP_R | MAP_X, NULL); /* JIT-like code */
	add_mapping(stack_lo, stack_hi, MAP_R | MAP_W, "[stack]");
	maps_sort(&as.maps);
	addrspace_index(&as);
	stackwalk_init(&sw, &as, NULL, &names, false);
	sample_walker_init(&w, &sw, &as, 0);
	/* the target's memory, as it is when the record is walked */
	w.fence.backing = &fh.base;
}

static void teardown(void)
{
	sample_walker_free(&w);
	stackwalk_free(&sw);
	addrspace_free(&as);
	intern_free(&names);
	fh_free(&fh);
}

TestSuite(sample_walk, .init = setup, .fini = teardown);

static void put(uint64_t addr, uint64_t v)
{
	memcpy(fh_ptr(&fh, addr), &v, 8);
}

/* A record being built: ranges copied from the target's memory as it is now. */
struct rec {
	struct v8w_record r;
	uint8_t mem[V8W_MEM_MAX];
	size_t len;
};

static void capture(struct rec *rec, uint64_t addr, uint32_t len, uint32_t kind)
{
	struct v8w_range h = {.addr = addr, .len = len, .kind = kind};
	cr_assert_leq(rec->len + sizeof(h) + len + 8, sizeof(rec->mem));
	memcpy(rec->mem + rec->len, &h, sizeof(h));
	memcpy(rec->mem + rec->len + sizeof(h), fh_ptr(&fh, addr), len);
	rec->len += sizeof(h) + ((len + 7) & ~7u);
}

static void set_regs(struct rec *rec, uint64_t pc, uint64_t sp, uint64_t fp)
{
	memset(&rec->r, 0, sizeof(rec->r));
	rec->r.type = V8W_REC_SAMPLE;
	rec->r.regs[ARCH_PRSTATUS_PC] = pc; /* pt_regs begins as pr_reg does */
	rec->r.regs[ARCH_PRSTATUS_SP] = sp;
	rec->r.regs[ARCH_PRSTATUS_FP] = fp;
}

/* Three frame-pointer frames above sp: f1 → f2 → f3 (outermost, saved fp 0). */
static uint64_t f1, f2, f3, sp;

static void lay_out_chain(void)
{
	sp = stack_lo + 1024;
	f1 = stack_lo + 1536;
	f2 = stack_lo + 6144;
	f3 = stack_lo + 12288;
	put(f1, f2), put(f1 + 8, CODE + 0x101);
	put(f2, f3), put(f2 + 8, CODE + 0x202);
	put(f3, 0), put(f3 + 8, CODE + 0x303);
}

static int walk(struct rec *rec, struct frame *out, struct walk_stats *st)
{
	return sample_walk(&w, &rec->r, rec->mem, rec->len, out, 16, st);
}

Test(sample_walk, the_captured_memory_is_walked_not_the_stack_as_it_is_now)
{
	lay_out_chain();
	static struct rec rec;
	set_regs(&rec, CODE + 0x10, sp, f1);
	capture(&rec, sp, 1024, V8W_RANGE_TOP); /* holds f1's slots */
	capture(&rec, f2 - V8W_SLOTS_BELOW_FP, V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP, V8W_RANGE_FRAME);
	capture(&rec, f3 - V8W_SLOTS_BELOW_FP, V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP, V8W_RANGE_FRAME);
	/* the thread has moved on since the sample */
	put(f2 + 8, CODE + 0xbad);
	put(f1, stack_lo + 9000);
	struct frame out[16];
	struct walk_stats st;
	int n = walk(&rec, out, &st);
	cr_assert_eq(st.raw_frames, 4);
	cr_assert_eq(sw.raw[0].pc, CODE + 0x10);
	cr_assert_eq(sw.raw[1].pc, CODE + 0x101);
	cr_assert_eq(sw.raw[2].pc, CODE + 0x202, "the captured return address, not today's");
	cr_assert_eq(sw.raw[3].pc, CODE + 0x303);
	cr_assert_eq(st.end, UNWIND_FP_END);
	cr_assert_eq(n, 5, "four frames and the truncation mark (no _start reached)");
}

Test(sample_walk, a_frame_the_kernel_did_not_capture_ends_the_walk)
{
	lay_out_chain();
	static struct rec rec;
	set_regs(&rec, CODE + 0x10, sp, f1);
	capture(&rec, sp, 1024, V8W_RANGE_TOP);
	capture(&rec, f2 - V8W_SLOTS_BELOW_FP, V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP, V8W_RANGE_FRAME);
	/* f3 is missing (the record was full), while the live stack still holds a plausible frame */
	struct frame out[16];
	struct walk_stats st;
	int n = walk(&rec, out, &st);
	cr_assert_eq(st.raw_frames, 3, "f3's caller is not read from the live stack");
	cr_assert_eq(st.end, UNWIND_BROKEN);
	cr_assert_eq(out[n - 1].kind, FK_TRUNCATED);
	cr_assert_gt(w.fence.refused, 0);
}

/* A record with 64 bytes of stack above sp and no frame pointer. */
static struct rec *small_record(void)
{
	static struct rec rec;
	set_regs(&rec, CODE + 0x10, stack_lo + 1024, 0);
	rec.len = 0;
	capture(&rec, stack_lo + 1024, 64, V8W_RANGE_TOP);
	return &rec;
}

Test(sample_walk, memory_outside_the_stack_is_read_from_the_target)
{
	struct frame out[16];
	struct walk_stats st;
	walk(small_record(), out, &st);
	uint64_t obj = fh_alloc(&fh, 16) - 1, v = 0;
	put(obj, 0x1234);
	cr_assert(mem_read_u64(&w.snap.base, obj, &v), "a heap read passes the fence");
	cr_assert_eq(v, 0x1234);
	cr_assert_not(mem_read_u64(&w.snap.base, stack_lo + 4096, &v), "an uncaptured stack read fails");
	cr_assert(mem_read_u64(&w.snap.base, stack_lo + 1024 + 8, &v), "a captured one succeeds");
}

Test(sample_walk, malformed_records_are_refused)
{
	struct rec *rec = small_record();
	struct frame out[16];
	struct walk_stats st;
	cr_assert_eq(sample_walk(&w, &rec->r, rec->mem, rec->len - 8, out, 16, &st), -1,
		     "a range longer than the record");
	cr_assert_eq(sample_walk(&w, &rec->r, rec->mem, 10, out, 16, &st), -1, "a cut range header");
	cr_assert_geq(sample_walk(&w, &rec->r, rec->mem, 0, out, 16, &st), 0, "no ranges at all is fine");
}

Test(sample_walk, the_fence_refuses_exactly_its_range)
{
	struct memsrc_fence f;
	memsrc_fence_init(&f, &fh.base);
	uint64_t obj = fh_alloc(&fh, 64) - 1, v;
	memsrc_fence_set(&f, obj + 16, obj + 32);
	cr_assert(mem_read_u64(&f.base, obj + 8, &v));
	cr_assert_not(mem_read_u64(&f.base, obj + 12, &v), "overlaps the start");
	cr_assert_not(mem_read_u64(&f.base, obj + 24, &v));
	cr_assert(mem_read_u64(&f.base, obj + 32, &v));
	struct mem_range r[2] = {{.addr = obj, .buf = &v, .len = 8}, {.addr = obj + 16, .buf = &v, .len = 8}};
	mem_readv(&f.base, r, 2);
	cr_assert_eq(r[0].got, 8);
	cr_assert_eq(r[1].got, 0);
}
