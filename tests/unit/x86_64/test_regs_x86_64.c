/* test_regs_x86_64.c — x86-64's register layouts (arch/x86_64/regs_x86_64.c): perf's sampled user
 * registers and a core's pr_reg in DWARF numbers, and its unwinding rules (no link register; a
 * frame-pointer step's caller sp right above the saved fp and return address). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "../../../mem/regs.h"
#include "../../../walker/unwind_arch.h"

Test(regs_x86_64, perf_order_is_not_dwarf_order)
{
	/* ax bx cx dx si di bp sp ip flags cs ss r8-r15; r15 not known (all ones) */
	uint64_t v[ARCH_PERF_NREGS];
	for (int i = 0; i < ARCH_PERF_NREGS; i++)
		v[i] = i == 6 ? 0x7ffd0010 : i == 7 ? 0x7ffd0000 : i == 8 ? 0x401000 : i == 19 ? UINT64_MAX : 0x100 + (uint64_t)i;
	struct regset s;
	regset_from_perf(&s, v);
	cr_assert_eq(s.r[DW_RSP], 0x7ffd0000);
	cr_assert_eq(s.r[DW_RIP], 0x401000);
	cr_assert_eq(s.r[DW_RBP], 0x7ffd0010);
	cr_assert_eq(s.r[DW_RAX], 0x100);
	cr_assert_eq(s.r[DW_RBX], 0x101, "perf's order (ax bx cx dx) is not DWARF's (ax dx cx bx)");
	cr_assert_eq(s.r[DW_RDX], 0x103);
	cr_assert_eq(s.r[DW_R8], 0x10c);
	cr_assert_eq(s.r[DW_R14], 0x112);
	for (int dw = 0; dw < ARCH_NREGS; dw++)
		cr_assert(reg_ok(&s, dw) == (dw != DW_R15), "register %d is known (r15: all ones, not)", dw);
}

Test(regs_x86_64, prstatus_is_user_regs_struct)
{
	uint64_t u[ARCH_PRSTATUS_NREGS] = {0};
	for (int i = 0; i < ARCH_PRSTATUS_NREGS; i++)
		u[i] = 0x1000 + (uint64_t)i;
	struct regset s;
	regset_from_prstatus(&s, u);
	cr_assert_eq(s.r[REG_PC], u[ARCH_PRSTATUS_PC]);
	cr_assert_eq(s.r[REG_SP], u[ARCH_PRSTATUS_SP]);
	cr_assert_eq(s.r[REG_FP], u[ARCH_PRSTATUS_FP]);
	cr_assert_eq(s.r[DW_R15], u[0]);
	cr_assert_eq(s.r[DW_RAX], u[10]);
	cr_assert_eq(s.pac_mask, 0);
	cr_assert_eq(regset_pac_mask_default(), 0);
}

Test(regs_x86_64, no_link_register)
{
	struct regset s = {0};
	reg_set(&s, REG_PC, 0x401000);
	uint64_t ret;
	cr_assert_not(unwind_top_link(&s, &ret));
}
