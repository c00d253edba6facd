/* kallsyms.h — kernel function names for kernel frames (--kernel), from /proc/kallsyms: text
 * symbols sorted by address; an address is named by the last symbol at or below it. When the
 * kernel hides the addresses (kernel.kptr_restrict, or not root: every address reads 0) the
 * table is empty and kernel frames stay "[unknown] (kernel)". */
#ifndef V8WALK_KALLSYMS_H
#define V8WALK_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

struct ksym {
	uint64_t addr;
	uint32_t name_off; /* into names */
};

struct kallsyms {
	struct ksym *v;
	size_t n, cap;
	struct strbuf names;
};

/* Load text symbols from a kallsyms file; false (and an empty table) when none have addresses. */
bool kallsyms_load(struct kallsyms *k, const char *path);
void kallsyms_free(struct kallsyms *k);
/* The function containing addr, or NULL. */
const char *kallsyms_name(const struct kallsyms *k, uint64_t addr);

#endif
