/* cfi.h — one native unwind step by DWARF CFI (.eh_frame via libdw), with a per-PC rule cache so
 * that steady-state steps cost a hash lookup. */
#ifndef V8WALK_CFI_H
#define V8WALK_CFI_H

#include <stdbool.h>
#include <stdint.h>

#include "../symtab/elf_image.h"
#include "../util/u64map.h"
#include "../mem/memsrc.h"
#include "../mem/regs.h"

enum cfi_result {
	CFI_OK = 0,
	CFI_NO_FDE,  /* no unwind information covers this PC */
	CFI_END,     /* the return address is undefined: outermost frame (_start, clone) */
	CFI_BAD,     /* rules could not be evaluated (unreadable memory, bad expression) */
};

struct cfi_rule; /* compiled form of one PC's rules */

struct cfi_cache {
	struct {
		const struct elf_image *img;
		struct u64map idx; /* vaddr + 1 → index into rules + 1 (0 = no FDE) */
	} per_img[64];
	size_t nimg;
	struct cfi_rule *rules;
	size_t nrules, cap, max_rules;
	unsigned long hits, misses;
};

void cfi_cache_init(struct cfi_cache *c, size_t max_rules);
void cfi_cache_free(struct cfi_cache *c);

/* Unwind one frame. `vaddr` is the link-time PC to look up (already minus 1 for return addresses),
 * `in` the registers of this frame; `out` gets the caller's (pc, sp and whatever CFI restores;
 * pc is the return address, its pointer authentication code cleared).
 * *signal_frame is set when this frame is a signal trampoline. */
enum cfi_result cfi_step(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr,
			 const struct regset *in, struct regset *out, struct memsrc *mem,
			 bool *signal_frame);

/* The stack pointer of a frame at `vaddr` (link-time, as cfi_step takes it) whose frame pointer is
 * fp, where its rules define the CFA from the stack pointer (CFA = sp + A) and save the frame
 * pointer and the return address side by side at CFA + off: its frame record, which on a machine
 * whose frame pointer holds its frame record's address (arm64: AAPCS64) is at fp, so that
 * sp = fp - off - A. False where the rules say otherwise (no FDE, the CFA from another register,
 * no frame record). */
bool cfi_sp_from_frame_record(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr,
			      uint64_t fp, uint64_t *sp);

/* Is there an FDE for `vaddr` (link-time, as cfi_step takes it)? */
bool cfi_covers(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr);

#endif
