/* unwind_arch.h — the unwinding rules that differ by architecture, beyond the DWARF numbers of
 * arch_defs.h: where a frame-pointer step finds the caller's stack pointer, and which return
 * addresses a frame at the top of the stack keeps outside its own frame. Implemented per
 * architecture (arch/$(ARCH)/unwind_*.c). */
#ifndef V8WALK_UNWIND_ARCH_H
#define V8WALK_UNWIND_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "../mem/regs.h"

/* Does code at this return address have unwind tables (native code, not V8's)? */
typedef bool (*unwind_native_fn)(void *ctx, uint64_t ret);

/* The caller's registers beyond fp and pc after a frame-pointer step from the frame at fp
 * (`next` holds the caller's fp and pc already): its stack pointer, and whatever else the frame
 * is known to have saved. `native` is asked only where the answer changes the rule. */
void unwind_fp_caller(struct regset *next, uint64_t fp, struct memsrc *mem, unwind_native_fn native,
		      void *ctx);

/* The return address a frame at the top of the stack holds in a register rather than on the
 * stack (arm64: the link register, for code that has not saved it yet), authentication code
 * cleared; false where there is none. */
bool unwind_top_link(const struct regset *top, uint64_t *ret);

#endif
