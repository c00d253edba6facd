/* self_walk.c — the unit tests' walk of their own live stack (see self_walk.h). */
#include "self_walk.h"

#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

void self_walk(struct walk *w, const struct regset *regs)
{
	addrspace_init(&w->as, getpid(), "");
	cr_assert_eq(addrspace_load_proc(&w->as), 0);
	memsrc_live_init(&w->mem, getpid());
	unwinder_init(&w->u, &w->as);
	intern_init(&w->names);
	native_names_init(&w->nn, &w->as, &w->names, false);
	const struct mapping *m = maps_find(&w->as.maps, regs->r[REG_SP]);
	cr_assert_not_null(m);
	struct stack_bounds b = {m->start, m->end};
	w->n = unwind_stack(&w->u, regs, &w->mem.base, &b, w->raw, 128, &w->end);
}

const char *self_walk_name(struct walk *w, int i)
{
	uint32_t file;
	uint64_t off;
	bool ret = w->raw[i].how != FRAME_TOP && w->raw[i].how != FRAME_SIGNAL_RESUME;
	return intern_get(&w->names, native_name(&w->nn, w->raw[i].pc, ret, &file, &off));
}

int self_walk_find(struct walk *w, const char *name)
{
	for (int i = 0; i < w->n; i++)
		if (strcmp(self_walk_name(w, i), name) == 0)
			return i;
	return -1;
}

void self_walk_free(struct walk *w)
{
	native_names_free(&w->nn);
	intern_free(&w->names);
	unwinder_free(&w->u);
	memsrc_live_close(&w->mem);
	addrspace_free(&w->as);
}
