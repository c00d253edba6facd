/* bpf_regs.h (x86-64) — the eBPF program's access to a task's registers (bpf/bpf_sampler.bpf.c,
 * built with -D__TARGET_ARCH_x86): the user pt_regs' stack and frame pointers and the system
 * call a sleeping thread is in, and whether a perf sample's registers are the kernel's. */
#ifndef V8WALK_BPF_REGS_H
#define V8WALK_BPF_REGS_H

#define V8W_UREGS_SP(r) BPF_CORE_READ(r, sp)
#define V8W_UREGS_FP(r) BPF_CORE_READ(r, bp)
#define V8W_UREGS_SYSCALL(r) BPF_CORE_READ(r, orig_ax)
/* interrupted in the kernel half of the address space */
#define V8W_CTX_IN_KERNEL(ctx) ((long)(ctx)->regs.ip < 0)

#endif
