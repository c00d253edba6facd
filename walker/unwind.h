/* unwind.h — the hybrid unwinder: DWARF CFI where an ELF module has unwind tables (node's C++,
 * libuv, glibc, …), the frame-pointer chain elsewhere (JIT code, V8's embedded builtins and their
 * remapped copy). It knows nothing about names; it yields raw frames (pc, sp, fp). */
#ifndef V8WALK_UNWIND_H
#define V8WALK_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "../symtab/addrspace.h"
#include "cfi.h"
#include "../mem/memsrc.h"
#include "../mem/regs.h"

enum frame_how {
	FRAME_TOP,  /* registers of the interrupted thread */
	FRAME_CFI,  /* caller recovered by CFI */
	FRAME_FP,   /* caller recovered by the frame-pointer chain */
	FRAME_SIGNAL_RESUME, /* interrupted state restored by a signal frame: pc is exact */
	FRAME_LINK, /* caller from the link register: a top function without unwind tables that has
		       not saved it (arm64: a leaf, or a prologue) */
};

struct raw_frame {
	uint64_t pc; /* exact for the top frame (and after a signal frame), else a return address */
	uint64_t sp, fp;
	uint8_t how; /* enum frame_how */
	bool fp_ok;
	bool no_cfi; /* no unwind info covers pc: the caller was found by the frame-pointer chain */
};

enum unwind_end {
	UNWIND_COMPLETE,  /* reached the outermost frame (CFI says the return address is undefined) */
	UNWIND_FP_END,    /* the frame-pointer chain ended (fp 0 or return address 0) */
	UNWIND_MAX_DEPTH, /* stopped at the depth limit */
	UNWIND_BROKEN,    /* a step failed (unreadable memory, non-monotonic stack, no rule) */
};

struct unwinder {
	struct addrspace *as;
	struct cfi_cache cfi;
};

struct stack_bounds {
	uint64_t lo, hi; /* the thread's stack mapping; frames must lie inside */
};

void unwinder_init(struct unwinder *u, struct addrspace *as);
void unwinder_free(struct unwinder *u);

/* Walk from `regs`; fills up to max frames; returns the number of frames; *end says why it stopped. */
int unwind_stack(struct unwinder *u, const struct regset *regs, struct memsrc *mem,
		 const struct stack_bounds *bounds, struct raw_frame *out, int max,
		 enum unwind_end *end);

#endif
