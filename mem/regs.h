/* regs.h — x86-64 register sets in DWARF numbering, and conversion from ptrace/core layouts. */
#ifndef V8WALK_REGS_H
#define V8WALK_REGS_H

#include <stdbool.h>
#include <stdint.h>

enum {
	DW_RAX = 0, DW_RDX, DW_RCX, DW_RBX, DW_RSI, DW_RDI, DW_RBP, DW_RSP,
	DW_R8, DW_R9, DW_R10, DW_R11, DW_R12, DW_R13, DW_R14, DW_R15,
	DW_RIP, DW_NREGS
};

struct regset {
	uint64_t r[DW_NREGS];
	uint32_t valid; /* bit n set = r[n] known */
	uint64_t fs_base;
};

static inline bool reg_ok(const struct regset *s, int n) { return (s->valid >> n) & 1; }
static inline void reg_set(struct regset *s, int n, uint64_t v) { s->r[n] = v; s->valid |= 1u << n; }

/* From the kernel's user_regs_struct (27 u64: ptrace GETREGS and a core's NT_PRSTATUS pr_reg). */
void regset_from_user_regs(struct regset *out, const uint64_t user_regs[27]);

#endif
