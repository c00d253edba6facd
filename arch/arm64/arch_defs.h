/* arch_defs.h (arm64) — what the rest of v8walk needs to know about the machine it runs on (see
 * arch/x86_64/arch_defs.h for the list) for aarch64 Linux. DWARF numbers are the AArch64 ABI's
 * (x0-x30 = 0-30, sp = 31, pc = 32: DWARF for the Arm 64-bit Architecture); the CFI return-address
 * column is x30, the link register. Plain enums only: the eBPF program includes it too. */
#ifndef V8WALK_ARCH_DEFS_H
#define V8WALK_ARCH_DEFS_H

#define ARCH_NAME "arm64"

enum {
	DW_X0 = 0, DW_X19 = 19, DW_X20 = 20, DW_X29 = 29, DW_X30 = 30,
	DW_SP = 31, DW_PC = 32, ARCH_NREGS = 33
};

enum {
	REG_PC = DW_PC,
	REG_SP = DW_SP,
	REG_FP = DW_X29,
	REG_RA = DW_X30, /* the CFI return-address column */
	REG_LR = DW_X30, /* a frameless function's return address is here, not on the stack */
};

enum { ARCH_ELF_MACHINE = 183 /* EM_AARCH64 */ };

/* Does a frame pointer of 0 in an ELF file's code without unwind tables end the stack? AAPCS64:
 * the outermost frame record's is 0 (_start sets it; an old glibc's _start, as in the official
 * Node builds, has no CFI to say so) */
enum { ARCH_FP_ZERO_IS_OUTERMOST = 1 };

/* Does a function's frame pointer hold the address of its frame record (where the frame pointer
 * itself is saved)? AAPCS64: yes, wherever the code keeps frame records; so a caller's stack
 * pointer follows from its fp and its CFI (cfi_sp_from_frame_record), whatever its callee pushed
 * above its own frame record (V8's PushAllRegistersAndIterateStack pushes x19-x28 first) */
enum { ARCH_FP_AT_FRAME_RECORD = 1 };

/* struct user_pt_regs {regs[31], sp, pc, pstate}: a core's NT_PRSTATUS pr_reg,
 * PTRACE_GETREGSET NT_PRSTATUS, and the head of the kernel's pt_regs the eBPF program copies */
enum { ARCH_PRSTATUS_NREGS = 34, ARCH_BPF_USER_REGS = 34 };
/* where pc, sp and fp are in it */
enum { ARCH_PRSTATUS_PC = 32, ARCH_PRSTATUS_SP = 31, ARCH_PRSTATUS_FP = 29 };

/* perf's user registers (asm/perf_regs.h, enum perf_event_arm64_regs): x0-x28 = 0-28, x29 = 29,
 * lr = 30, sp = 31, pc = 32, in that order */
#define ARCH_PERF_REGS_MASK ((1ULL << 33) - 1)
enum { ARCH_PERF_NREGS = 33 };

/* V8's interpreter (register-arm64.h): kInterpreterBytecodeOffsetRegister x19,
 * kInterpreterBytecodeArrayRegister x20 */
enum { REG_V8_BYTECODE_OFFSET = DW_X19, REG_V8_BYTECODE_ARRAY = DW_X20 };

/* the system calls libuv's epoll loop sleeps in (asm-generic/unistd.h: arm64 has no epoll_wait;
 * -1 matches no system call) */
enum {
	LOOP_WAIT_NR_EPOLL_WAIT = -1,
	LOOP_WAIT_NR_EPOLL_PWAIT = 22,
	LOOP_WAIT_NR_EPOLL_PWAIT2 = 441,
};

/* ptrace mode's --stack-copy auto: v8walk copies stacks itself (process_vm_readv); the kernel's
 * copy only with --stack-copy kernel. Debian 12's arm64 kernel (6.1) warns in perf's core
 * (kernel/events/core.c, event_function) and then locks up after minutes of per-thread
 * context-switch events being opened disabled, paused, enabled and closed as ptrace/switch_copy.c
 * does — a small program doing only that does it too */
enum { ARCH_KERNEL_STACK_COPY_BY_DEFAULT = 0 };

/* The first kernel (major << 16 | minor << 8) on which v8walk opens a perf event per thread
 * unasked (ptrace mode's context-switch records, ptrace/run_ring.h): the same 6.1 kernel also
 * locked up, once in two runs of the suite's arm64 part, closing one of those that were opened
 * enabled (perf_release spinning in event_function_call after a warning at
 * kernel/events/core.c:3899); perf's context handling was rewritten in 6.2 */
enum { ARCH_THREAD_PERF_EVENTS_FROM = 6 << 16 | 2 << 8 };

#endif
