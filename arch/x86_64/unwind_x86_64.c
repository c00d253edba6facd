/* unwind_x86_64.c — x86-64's unwinding rules (walker/unwind_arch.h): `call` pushes the return
 * address, every frame-pointer frame (V8's entry frame too: it pushes the callee-saved registers
 * below fp) has its caller's stack pointer right above the saved fp and return address. */
#include "../../walker/unwind_arch.h"

void unwind_fp_caller(struct regset *next, uint64_t fp, struct memsrc *mem, unwind_native_fn native,
		      void *ctx)
{
	(void)mem, (void)native, (void)ctx;
	reg_set(next, REG_SP, fp + 16);
}

bool unwind_top_link(const struct regset *top, uint64_t *ret)
{
	(void)top, (void)ret;
	return false;
}
