/* regs_arm64.c — aarch64 register sets from the kernel's layouts (mem/regs.h): struct
 * user_pt_regs {regs[31], sp, pc, pstate} for ptrace, cores and the eBPF program, perf's
 * x0-x28, fp, lr, sp, pc for the kernel's stack copy. */
#include "../../mem/regs.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#ifndef NT_ARM_PAC_MASK
#define NT_ARM_PAC_MASK 0x406
#endif

static void from_user_pt_regs(struct regset *out, const uint64_t *u)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i <= DW_X30; i++)
		reg_set(out, i, u[i]);
	reg_set(out, DW_SP, u[31]);
	reg_set(out, DW_PC, u[32]);
}

void regset_from_prstatus(struct regset *out, const uint64_t pr_reg[ARCH_PRSTATUS_NREGS])
{
	from_user_pt_regs(out, pr_reg);
}

void regset_from_bpf(struct regset *out, const uint64_t vals[ARCH_BPF_USER_REGS])
{
	from_user_pt_regs(out, vals);
}

void regset_from_perf(struct regset *out, const uint64_t vals[ARCH_PERF_NREGS])
{
	memset(out, 0, sizeof(*out));
	/* perf's order is DWARF's: x0-x30, sp, pc */
	for (int i = 0; i < ARCH_PERF_NREGS; i++)
		if (vals[i] != UINT64_MAX)
			reg_set(out, i, vals[i]);
}

int regset_read_ptrace(pid_t tid, struct regset *out)
{
	uint64_t u[ARCH_PRSTATUS_NREGS];
	struct iovec iov = {u, sizeof(u)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)NT_PRSTATUS, &iov) != 0)
		return -errno;
	if (iov.iov_len < 33 * sizeof(uint64_t))
		return -EIO;
	from_user_pt_regs(out, u);
	return 0;
}

uint64_t regset_pac_mask_ptrace(pid_t tid)
{
	/* struct user_pac_mask {data_mask, insn_mask}: absent (EINVAL) without pointer
	 * authentication */
	uint64_t m[2] = {0, 0};
	struct iovec iov = {m, sizeof(m)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)NT_ARM_PAC_MASK, &iov) != 0 || iov.iov_len < sizeof(m))
		return 0;
	return m[1];
}

uint64_t regset_pac_mask_default(void)
{
	/* bits 54-48: Linux's ptrauth_user_pac_mask() for 48-bit user addresses; with 52-bit ones
	 * a program's mappings still lie below 2^48 unless it asks for more (mmap's hint) */
	return 0x007f000000000000ull;
}
