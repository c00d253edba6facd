/* arch_defs.h (x86-64) — what the rest of v8walk needs to know about the machine it runs on: the
 * DWARF register numbers a register set uses and which of them are pc, sp, fp and the CFI
 * return-address column, the ELF machine, the layouts of the kernel's register sets (a core's
 * NT_PRSTATUS, perf's sampled user registers, the eBPF program's pt_regs), V8's fixed
 * interpreter registers, and the system calls libuv's event loop sleeps in. The GNUmakefile puts
 * arch/$(ARCH) on the include path; arch/arm64/arch_defs.h is the same for aarch64. Plain enums
 * only: the eBPF program includes it too. */
#ifndef V8WALK_ARCH_DEFS_H
#define V8WALK_ARCH_DEFS_H

#define ARCH_NAME "x86-64"

enum {
	DW_RAX = 0, DW_RDX, DW_RCX, DW_RBX, DW_RSI, DW_RDI, DW_RBP, DW_RSP,
	DW_R8, DW_R9, DW_R10, DW_R11, DW_R12, DW_R13, DW_R14, DW_R15,
	DW_RIP, ARCH_NREGS
};

enum {
	REG_PC = DW_RIP,
	REG_SP = DW_RSP,
	REG_FP = DW_RBP,
	REG_RA = DW_RIP, /* the CFI return-address column: the return address is the caller's pc */
	REG_LR = -1,     /* no link register: `call` pushes the return address */
};

enum { ARCH_ELF_MACHINE = 62 /* EM_X86_64 */ };

/* Does a frame pointer of 0 in an ELF file's code without unwind tables end the stack (the
 * outermost frame)? x86-64: taken as the chain's end, not as the stack's (a frame with CFI
 * ends it) */
enum { ARCH_FP_ZERO_IS_OUTERMOST = 0 };

/* Does a function's frame pointer hold the address of its frame record? x86-64: not to be
 * relied on (code built without frame pointers keeps rbp as a general register, saved and all);
 * a frame-pointer step's callee pushed its rbp first, so the caller's rsp is fp + 16 */
enum { ARCH_FP_AT_FRAME_RECORD = 0 };

/* user_regs_struct: a core's NT_PRSTATUS pr_reg, PTRACE_GETREGS; where pc, sp and fp are in it
 * (and in the eBPF program's copy) */
enum { ARCH_PRSTATUS_NREGS = 27, ARCH_PRSTATUS_PC = 16, ARCH_PRSTATUS_SP = 19, ARCH_PRSTATUS_FP = 4 };

/* the eBPF program's copy of the user pt_regs: user_regs_struct up to ss */
enum { ARCH_BPF_USER_REGS = 21 };

/* perf's user registers the kernel's stack copy asks for (asm/perf_regs.h): ax bx cx dx si di bp
 * sp ip flags cs ss (0-11) and r8-r15 (16-23); the segment registers 12-15 are not there for a
 * 64-bit task. The kernel writes them by bit, lowest first. */
#define ARCH_PERF_REGS_MASK (0xfffULL | (0xffULL << 16))
enum { ARCH_PERF_NREGS = 20 };

/* V8's interpreter (register-x64.h): the bytecode offset and the bytecode array live in these
 * registers inside a bytecode handler */
enum { REG_V8_BYTECODE_OFFSET = DW_R9, REG_V8_BYTECODE_ARRAY = DW_R12 };

/* the system calls libuv's epoll loop sleeps in (asm/unistd_64.h) */
enum {
	LOOP_WAIT_NR_EPOLL_WAIT = 232,
	LOOP_WAIT_NR_EPOLL_PWAIT = 281,
	LOOP_WAIT_NR_EPOLL_PWAIT2 = 441,
};

/* ptrace mode's --stack-copy auto: the kernel copies a stopped thread's stack as it switches out
 * into its stop (a per-thread context-switch perf event, ptrace/switch_copy.h) */
enum { ARCH_KERNEL_STACK_COPY_BY_DEFAULT = 1 };

/* The first kernel on which v8walk opens a perf event per thread unasked (arch/arm64's): any */
enum { ARCH_THREAD_PERF_EVENTS_FROM = 0 };

#endif
