/* unwind_arm64.c — aarch64's unwinding rules (walker/unwind_arch.h). A frame record is {fp, lr} at
 * fp, and V8's frames have their caller's sp right above it, but for one: V8's entry frame
 * (JSEntry, called from C++) pushes the C++ caller's callee-saved registers x19-x28 and d8-d15
 * above its frame record (src/execution/arm64/frame-constants-arm64.h: EntryFrameConstants,
 * kDirectCallerSPOffset = 16 + 18 * 8), and its marker (a Smi: the frame type << 1) sits at fp - 8.
 * A function that has not saved its link register yet returns to lr. */
#include "../../walker/unwind_arch.h"

enum {
	ENTRY_CALLEE_SAVED = 18,   /* x19-x28, d8-d15 */
	ENTRY_MARKER_MAX = 0x1000, /* a frame-type marker is a small Smi */
};

void unwind_fp_caller(struct regset *next, uint64_t fp, struct memsrc *mem, unwind_native_fn native,
		      void *ctx)
{
	uint64_t marker, saved[10];
	/* an entry frame returns into C++ (with unwind tables) and holds a typed frame's marker */
	if (mem_read_u64(mem, fp - 8, &marker) && !(marker & 1) && marker && marker < ENTRY_MARKER_MAX &&
	    native(ctx, next->r[REG_PC])) {
		reg_set(next, REG_SP, fp + 16 + ENTRY_CALLEE_SAVED * 8);
		if (mem_read(mem, fp + 16, saved, sizeof(saved)))
			for (int i = 0; i < 10; i++)
				reg_set(next, DW_X19 + i, saved[i]);
		return;
	}
	reg_set(next, REG_SP, fp + 16);
}

bool unwind_top_link(const struct regset *top, uint64_t *ret)
{
	if (!reg_ok(top, REG_LR) || top->r[REG_LR] == 0)
		return false;
	*ret = reg_strip_pac(top, top->r[REG_LR]);
	return true;
}
