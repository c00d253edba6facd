/* regs_x86_64.c — x86-64 register sets from the kernel's layouts (mem/regs.h). */
#include "../../mem/regs.h"

#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

/* user_regs_struct order: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs
 * eflags rsp ss fs_base gs_base ds es fs gs */
static void from_user_regs(struct regset *out, const uint64_t *u)
{
	static const int dw_of_user[17] = {DW_R15, DW_R14, DW_R13, DW_R12, DW_RBP, DW_RBX,
					   DW_R11, DW_R10, DW_R9,  DW_R8,  DW_RAX, DW_RCX,
					   DW_RDX, DW_RSI, DW_RDI, -1,     DW_RIP};
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 17; i++)
		if (dw_of_user[i] >= 0)
			reg_set(out, dw_of_user[i], u[i]);
	reg_set(out, DW_RSP, u[19]);
}

void regset_from_prstatus(struct regset *out, const uint64_t pr_reg[ARCH_PRSTATUS_NREGS])
{
	from_user_regs(out, pr_reg);
}

void regset_from_bpf(struct regset *out, const uint64_t vals[ARCH_BPF_USER_REGS])
{
	from_user_regs(out, vals);
}

void regset_from_perf(struct regset *out, const uint64_t vals[ARCH_PERF_NREGS])
{
	/* perf's order (ARCH_PERF_REGS_MASK, by bit) in DWARF numbers; -1: not unwinding state */
	static const int dw_of[ARCH_PERF_NREGS] = {DW_RAX, DW_RBX, DW_RCX, DW_RDX, DW_RSI, DW_RDI,
						   DW_RBP, DW_RSP, DW_RIP, -1,     -1,     -1,
						   DW_R8,  DW_R9,  DW_R10, DW_R11, DW_R12, DW_R13,
						   DW_R14, DW_R15};
	memset(out, 0, sizeof(*out));
	/* taken in the kernel (a switch), x86 gives no callee-saved registers but bp: bx and
	 * r12-r15 read all ones, and are not known */
	for (int i = 0; i < ARCH_PERF_NREGS; i++)
		if (dw_of[i] >= 0 && vals[i] != UINT64_MAX)
			reg_set(out, dw_of[i], vals[i]);
}

int regset_read_ptrace(pid_t tid, struct regset *out)
{
	struct user_regs_struct ur;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur) != 0)
		return -errno;
	from_user_regs(out, (const uint64_t *)&ur);
	return 0;
}

uint64_t regset_pac_mask_ptrace(pid_t tid)
{
	(void)tid;
	return 0;
}

uint64_t regset_pac_mask_default(void)
{
	return 0;
}
