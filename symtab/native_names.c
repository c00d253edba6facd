/* native_names.c — native frame naming with a per-symbol demangle cache and a per-address cache
 * (the same return addresses recur in every sample of a thread). */
#include "native_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "demangle.h"

enum { NAMED_MAX = 1 << 14 }; /* addresses remembered (then forgotten all at once) */

void native_names_init(struct native_names *nn, struct addrspace *as, struct intern *strings,
		       bool with_params)
{
	memset(nn, 0, sizeof(*nn));
	nn->as = as;
	nn->strings = strings;
	nn->with_params = with_params;
	u64map_init(&nn->by_symbol, 0);
	u64map_init(&nn->by_pc, 0);
}

void native_names_free(struct native_names *nn)
{
	u64map_free(&nn->by_symbol);
	u64map_free(&nn->by_pc);
	free(nn->named);
	nn->named = NULL;
}

uint32_t native_symbol_name(struct native_names *nn, const char *sym)
{
	uint64_t v;
	if (u64map_get(&nn->by_symbol, (uint64_t)(uintptr_t)sym, &v))
		return (uint32_t)(v - 1);
	char *d = demangle(sym, nn->with_params);
	uint32_t id = intern_str(nn->strings, d);
	free(d);
	u64map_put(&nn->by_symbol, (uint64_t)(uintptr_t)sym, (uint64_t)id + 1);
	return id;
}

static uint32_t name_of(struct native_names *nn, uint64_t pc, bool is_return, uint32_t *file,
		       uint64_t *module_off);

uint32_t native_name(struct native_names *nn, uint64_t pc, bool is_return, uint32_t *file,
		     uint64_t *module_off)
{
	uint64_t key = pc * 2 + is_return, k;
	if (nn->generation != nn->as->generation || nn->nnamed == NAMED_MAX) {
		u64map_clear(&nn->by_pc);
		nn->nnamed = 0;
		nn->generation = nn->as->generation;
	}
	if (key && u64map_get(&nn->by_pc, key, &k)) {
		const struct native_named *c = &nn->named[k - 1];
		*file = c->file;
		*module_off = c->module_off;
		return c->name;
	}
	uint32_t name = name_of(nn, pc, is_return, file, module_off);
	if (key) {
		if (!nn->named)
			nn->named = xcalloc(NAMED_MAX, sizeof(*nn->named));
		nn->named[nn->nnamed] = (struct native_named){name, *file, *module_off};
		u64map_put(&nn->by_pc, key, ++nn->nnamed);
	}
	return name;
}

static uint32_t name_of(struct native_names *nn, uint64_t pc, bool is_return, uint32_t *file,
		       uint64_t *module_off)
{
	uint64_t look = is_return && pc ? pc - 1 : pc;
	struct addr_info ai;
	char buf[512];
	*file = 0;
	*module_off = 0;
	if (!addrspace_lookup(nn->as, look, &ai)) {
		snprintf(buf, sizeof(buf), "[unknown] (0x%llx)", (unsigned long long)pc);
		return intern_str(nn->strings, buf);
	}
	if (!ai.mod && mapping_is_kernel_named(ai.map)) /* [vdso], [vsyscall] */
		return intern_str(nn->strings, ai.map->path);
	if (!ai.mod) {
		snprintf(buf, sizeof(buf), "[unknown] (%s+0x%llx)",
			 ai.map->path ? ai.map->path : "anon",
			 (unsigned long long)(look - ai.map->start));
		return intern_str(nn->strings, buf);
	}
	*file = intern_str(nn->strings, module_basename(ai.mod));
	*module_off = look - ai.map->start + ai.map->pgoff;
	if (ai.vaddr_ok && ai.mod->img) {
		const struct elf_sym *s = elf_image_func_at(ai.mod->img, ai.vaddr);
		if (s)
			return native_symbol_name(nn, s->name);
	}
	snprintf(buf, sizeof(buf), "[unknown] (%s+0x%llx)", module_basename(ai.mod),
		 (unsigned long long)*module_off);
	return intern_str(nn->strings, buf);
}
