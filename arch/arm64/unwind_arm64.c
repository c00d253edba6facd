/* unwind_arm64.c — aarch64's unwinding rules (walker/unwind_arch.h). A frame record is {fp, lr} at
 * fp, and V8's frames have their caller's sp right above it, but for one: V8's entry frame
 * (JSEntry, called from C++) pushes the C++ caller's callee-saved registers x19-x28 and d8-d15
 * above its frame record (src/execution/arm64/frame-constants-arm64.h: EntryFrameConstants,
 * kDirectCallerSPOffset = 16 + 18 * 8), and below it two markers: the frame's type at fp - 8 (a
 * Smi, StackFrame::TypeToMarker: ENTRY or CONSTRUCT_ENTRY, the first two types) and 0 at fp - 16.
 * A function that has not saved its link register yet returns to lr. */
#include "../../walker/unwind_arch.h"

enum {
	ENTRY_CALLEE_SAVED = 18, /* x19-x28, d8-d15 */
	MARKER_ENTRY = 1 << 1,   /* StackFrame::ENTRY (1) as a Smi */
	MARKER_CONSTRUCT_ENTRY = 2 << 1,
};

/* Is the frame record at fp an entry frame's? Both markers are checked: below a native leaf's
 * record (x29 = sp) lies whatever its callees left, and a stale small even number there (a length,
 * a count) must not pass for one (OpenSSL's sha512_block_armv8 under SHA512_Final). */
static bool entry_frame_at(struct memsrc *mem, uint64_t fp)
{
	uint64_t m[2]; /* fp - 16, fp - 8 */
	return mem_read(mem, fp - 16, m, sizeof(m)) && m[0] == 0 &&
	       (m[1] == MARKER_ENTRY || m[1] == MARKER_CONSTRUCT_ENTRY);
}

void unwind_fp_caller(struct regset *next, uint64_t fp, struct memsrc *mem, unwind_native_fn native,
		      void *ctx)
{
	uint64_t saved[10];
	/* an entry frame returns into C++ (with unwind tables) */
	if (entry_frame_at(mem, fp) && native(ctx, next->r[REG_PC])) {
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
