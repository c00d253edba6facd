/* regs.h — a thread's register set in the DWARF numbering of the machine v8walk runs on
 * (arch_defs.h: REG_PC, REG_SP, REG_FP and the rest), and its conversion from the kernel's
 * layouts. Each conversion is per architecture (arch/$(ARCH)/regs_*.c). */
#ifndef V8WALK_REGS_H
#define V8WALK_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch_defs.h"

struct regset {
	uint64_t r[ARCH_NREGS];
	uint64_t valid;    /* bit n set = r[n] known */
	uint64_t pac_mask; /* the bits of a return address that are a pointer authentication code,
			    * not address (arm64; 0: none) */
};

static inline bool reg_ok(const struct regset *s, int n) { return n >= 0 && (s->valid >> n) & 1; }
static inline void reg_set(struct regset *s, int n, uint64_t v) { s->r[n] = v; s->valid |= 1ull << n; }

/* An address as code can use it: its pointer authentication code (if any) cleared. */
static inline uint64_t reg_strip_pac(const struct regset *s, uint64_t addr) { return addr & ~s->pac_mask; }

/* From a core's NT_PRSTATUS pr_reg (the kernel's elf_gregset_t). */
void regset_from_prstatus(struct regset *out, const uint64_t pr_reg[ARCH_PRSTATUS_NREGS]);

/* From perf's sampled user registers in ARCH_PERF_REGS_MASK's order; a value of all ones (what the
 * kernel gives for a register it did not save) is left unknown. */
void regset_from_perf(struct regset *out, const uint64_t vals[ARCH_PERF_NREGS]);

/* From the eBPF program's copy of the thread's user pt_regs (ARCH_BPF_USER_REGS words). */
void regset_from_bpf(struct regset *out, const uint64_t vals[ARCH_BPF_USER_REGS]);

/* The registers of a ptrace-stopped thread (0, or -errno). */
int regset_read_ptrace(pid_t tid, struct regset *out);

/* The bits of tid's return addresses that are a pointer authentication code, as the kernel
 * tells a tracer (0 where the machine or the kernel has none). */
uint64_t regset_pac_mask_ptrace(pid_t tid);

/* The same without a tracee (the eBPF sampler; a core without the kernel's note): the bits above
 * the largest user address Linux gives a program that did not ask for more (0: no such code). */
uint64_t regset_pac_mask_default(void);

#endif
