/* test_regs_arm64.c — aarch64's register layouts (arch/arm64/regs_arm64.c) and unwinding rules
 * (arch/arm64/unwind_arm64.c): user_pt_regs and perf's order in DWARF numbers, a pointer
 * authentication code cleared from return addresses, the link register of a frameless top frame,
 * and V8's entry frame, whose caller's sp lies above the callee-saved registers it pushed. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "../../../mem/memsrc.h"
#include "../../../mem/regs.h"
#include "../../../walker/unwind_arch.h"

Test(regs_arm64, prstatus_is_user_pt_regs)
{
	uint64_t u[ARCH_PRSTATUS_NREGS];
	for (int i = 0; i < ARCH_PRSTATUS_NREGS; i++)
		u[i] = 0x1000 + (uint64_t)i;
	struct regset s;
	regset_from_prstatus(&s, u);
	cr_assert_eq(s.r[REG_PC], 0x1000 + 32);
	cr_assert_eq(s.r[REG_SP], 0x1000 + 31);
	cr_assert_eq(s.r[REG_FP], 0x1000 + 29);
	cr_assert_eq(s.r[REG_LR], 0x1000 + 30);
	cr_assert_eq(s.r[DW_X0], 0x1000);
	for (int r = 0; r < ARCH_NREGS; r++)
		cr_assert(reg_ok(&s, r), "register %d", r);
}

Test(regs_arm64, perf_order_is_dwarf_order)
{
	uint64_t v[ARCH_PERF_NREGS];
	for (int i = 0; i < ARCH_PERF_NREGS; i++)
		v[i] = i == 19 ? UINT64_MAX : 0x2000 + (uint64_t)i;
	struct regset s;
	regset_from_perf(&s, v);
	cr_assert_eq(s.r[REG_FP], 0x2000 + 29);
	cr_assert_eq(s.r[REG_LR], 0x2000 + 30);
	cr_assert_eq(s.r[REG_SP], 0x2000 + 31);
	cr_assert_eq(s.r[REG_PC], 0x2000 + 32);
	cr_assert_not(reg_ok(&s, 19), "all ones: not known");
}

Test(regs_arm64, the_pac_is_cleared_from_the_link_register)
{
	struct regset s;
	memset(&s, 0, sizeof(s));
	s.pac_mask = regset_pac_mask_default();
	cr_assert_eq(s.pac_mask, 0x007f000000000000ull);
	reg_set(&s, REG_LR, 0x002a00aaaabbbb10ull); /* a PAC in bits 54-48 */
	uint64_t ret;
	cr_assert(unwind_top_link(&s, &ret));
	cr_assert_eq(ret, 0x0000aaaabbbb10ull);
	reg_set(&s, REG_LR, 0);
	cr_assert_not(unwind_top_link(&s, &ret), "no link: no return address");
}

/* a flat memory source over a buffer at a fixed address */
struct flat {
	struct memsrc base;
	uint64_t at;
	uint8_t bytes[512];
};

static ssize_t flat_read(struct memsrc *m, uint64_t addr, void *dst, size_t len)
{
	struct flat *f = (struct flat *)m;
	if (addr < f->at || addr - f->at > sizeof(f->bytes) || len > sizeof(f->bytes) - (addr - f->at))
		return -1;
	memcpy(dst, f->bytes + (addr - f->at), len);
	return (ssize_t)len;
}

static const struct memsrc_ops flat_ops = {.read = flat_read};

static bool always_native(void *ctx, uint64_t ret)
{
	(void)ctx, (void)ret;
	return true;
}

static bool never_native(void *ctx, uint64_t ret)
{
	(void)ctx, (void)ret;
	return false;
}

static void put(struct flat *f, uint64_t addr, uint64_t v)
{
	memcpy(f->bytes + (addr - f->at), &v, 8);
}

Test(regs_arm64, an_entry_frames_caller_sp_is_above_its_callee_saved_registers)
{
	static struct flat f;
	memset(&f, 0, sizeof(f));
	f.base.ops = &flat_ops;
	f.at = 0x7ff000;
	uint64_t fp = 0x7ff100;
	put(&f, fp - 8, 2 << 1); /* CONSTRUCT_ENTRY's marker (a Smi); 0 at fp - 16 */
	for (int i = 0; i < 10; i++)
		put(&f, fp + 16 + 8 * (uint64_t)i, 0x1900 + (uint64_t)i);
	struct regset next;
	memset(&next, 0, sizeof(next));
	reg_set(&next, REG_PC, 0x400000);
	unwind_fp_caller(&next, fp, &f.base, always_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 160, "EntryFrameConstants::kDirectCallerSPOffset");
	cr_assert_eq(next.r[DW_X19], 0x1900);
	cr_assert_eq(next.r[DW_X19 + 9], 0x1909, "x28");

	/* a JS frame (a context, a tagged pointer, at fp - 8), or a return into V8's code: fp + 16 */
	memset(&next, 0, sizeof(next));
	unwind_fp_caller(&next, fp, &f.base, never_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 16);
	put(&f, fp - 8, 0x7f0000001231);
	memset(&next, 0, sizeof(next));
	unwind_fp_caller(&next, fp, &f.base, always_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 16);
	cr_assert_not(reg_ok(&next, DW_X19));

	/* a native leaf's record (x29 = sp): below it whatever its callees left — a small even number
	 * (0x80, a length) over a 0 is no marker, nor ENTRY's marker over something else */
	put(&f, fp - 8, 0x80);
	memset(&next, 0, sizeof(next));
	unwind_fp_caller(&next, fp, &f.base, always_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 16, "a stale word below a leaf's record is no entry frame");
	put(&f, fp - 8, 1 << 1);
	put(&f, fp - 16, 0x7ff0a0);
	memset(&next, 0, sizeof(next));
	unwind_fp_caller(&next, fp, &f.base, always_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 16, "an entry frame's second marker is 0");
	put(&f, fp - 16, 0);
	memset(&next, 0, sizeof(next));
	unwind_fp_caller(&next, fp, &f.base, always_native, NULL);
	cr_assert_eq(next.r[REG_SP], fp + 160, "ENTRY's marker over 0");
}
