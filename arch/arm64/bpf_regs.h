/* bpf_regs.h (arm64) — the eBPF program's access to a task's registers (bpf/bpf_sampler.bpf.c,
 * built with -D__TARGET_ARCH_arm64): struct pt_regs begins with struct user_pt_regs {regs[31],
 * sp, pc, pstate}; fp is x29; the system call number is pt_regs.syscallno; a perf sample's
 * registers (bpf_user_pt_regs_t: struct user_pt_regs) are the kernel's when pstate's mode is not
 * EL0t (PSR_MODE_MASK 0xf; EL0t = 0). */
#ifndef V8WALK_BPF_REGS_H
#define V8WALK_BPF_REGS_H

#define V8W_UREGS_SP(r) BPF_CORE_READ(r, sp)
#define V8W_UREGS_FP(r) BPF_CORE_READ(r, regs[29])
#define V8W_UREGS_SYSCALL(r) BPF_CORE_READ(r, syscallno)
#define V8W_CTX_IN_KERNEL(ctx) (((ctx)->regs.pstate & 0xf) != 0)

#endif
