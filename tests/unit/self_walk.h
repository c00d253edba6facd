/* self_walk.h — the unit tests' walk of this test binary's own live stack by CFI, through the same
 * unwinder, address space, memory source and native names as a live target (test_cfi_*.c of each
 * machine). */
#ifndef V8WALK_TEST_SELF_WALK_H
#define V8WALK_TEST_SELF_WALK_H

#include "../../symtab/native_names.h"
#include "../../mem/memsrc_live.h"
#include "../../walker/unwind.h"

struct walk {
	struct addrspace as;
	struct memsrc_live mem;
	struct unwinder u;
	struct intern names;
	struct native_names nn;
	struct raw_frame raw[128];
	int n;
	enum unwind_end end;
};

/* Unwind this thread's stack from regs (their sp names the stack's mapping). */
void self_walk(struct walk *w, const struct regset *regs);
/* The native name of frame i; the index of the first frame named `name`, or -1. */
const char *self_walk_name(struct walk *w, int i);
int self_walk_find(struct walk *w, const char *name);
void self_walk_free(struct walk *w);

#endif
