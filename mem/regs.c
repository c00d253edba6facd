/* regs.c — register-layout conversions. */
#include "regs.h"

#include <string.h>

/* user_regs_struct order: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs
 * eflags rsp ss fs_base gs_base ds es fs gs */
void regset_from_user_regs(struct regset *out, const uint64_t u[27])
{
	static const int dw_of_user[17] = {DW_R15, DW_R14, DW_R13, DW_R12, DW_RBP, DW_RBX,
					   DW_R11, DW_R10, DW_R9,  DW_R8,  DW_RAX, DW_RCX,
					   DW_RDX, DW_RSI, DW_RDI, -1,     DW_RIP};
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 17; i++)
		if (dw_of_user[i] >= 0)
			reg_set(out, dw_of_user[i], u[i]);
	reg_set(out, DW_RSP, u[19]);
	out->fs_base = u[21];
}
