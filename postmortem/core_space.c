/* core_space.c — mappings of a core: PT_LOADs first, then the uncovered parts of NT_FILE entries. */
#include "core_space.h"

#include <elf.h>
#include <stddef.h>
#include <string.h>

#include "../util/interval.h"

/* placeholder permissions of a mapping the core left out, until fill_prot reads its ELF file */
static const uint32_t PROT_FROM_FILE = 0x80000000u;

static void add_mapping(struct addrspace *as, uint64_t start, uint64_t end, uint32_t prot,
			const struct mapping *f)
{
	struct mapping m = {.start = start, .end = end, .prot = prot};
	if (f) {
		m.path = f->path;
		m.pgoff = f->pgoff + (start - f->start);
		m.deleted = f->deleted;
	}
	maps_add(&as->maps, &m);
}

/* The parts of [f->start, f->end) no segment covers (segments are sorted and disjoint). */
static void add_uncovered(struct addrspace *as, const struct core_file *cf,
			  const struct mapping *f)
{
	uint64_t cur = f->start;
	/* from the first segment that ends above the file's start (binary search): the walk costs
	 * the segments the file overlaps, not all of them for every file */
	size_t first = interval_upper(cf->segs, cf->nsegs, sizeof(*cf->segs),
				      offsetof(struct core_segment, end), cur);
	for (size_t i = first; i < cf->nsegs && cur < f->end; i++) {
		const struct core_segment *s = &cf->segs[i];
		uint64_t s_end = s->vaddr + s->memsz;
		if (s->vaddr >= f->end)
			break;
		if (s_end <= cur)
			continue;
		if (s->vaddr > cur)
			add_mapping(as, cur, s->vaddr, 0, f);
		cur = s_end;
	}
	if (cur < f->end)
		add_mapping(as, cur, f->end, 0, f);
}

static uint32_t prot_of_pflags(uint32_t pf)
{
	return ((pf & PF_R) ? MAP_R : 0) | ((pf & PF_W) ? MAP_W : 0) | ((pf & PF_X) ? MAP_X : 0);
}

/* A mapping the core left out: its permissions are those of the ELF segment holding its file
 * offset (V8's remapped builtins are a copy of .text, hence executable), else read-only. */
static void fill_prot(struct addrspace *as, size_t i)
{
	struct mapping *m = &as->maps.v[i];
	m->prot = MAP_R;
	if (as->map_mod[i] < 0)
		return;
	struct elf_image *img = addrspace_image(as, &as->mods[as->map_mod[i]]);
	if (!img)
		return;
	for (size_t k = 0; k < img->nloads; k++) {
		const struct elf_load *l = &img->loads[k];
		if (m->pgoff >= (l->offset & ~0xfffULL) && m->pgoff < l->offset + l->filesz) {
			m->prot = prot_of_pflags(l->flags);
			return;
		}
	}
}

void core_space_build(struct addrspace *as, const struct core_file *cf, const char *exe_path,
		      const char *exe_subst)
{
	addrspace_init(as, 0, "");
	if (exe_path && exe_subst)
		addrspace_substitute(as, exe_path, exe_subst);
	for (size_t i = 0; i < cf->nsegs; i++) {
		const struct core_segment *s = &cf->segs[i];
		const struct mapping *f = maps_find(&cf->files, s->vaddr);
		add_mapping(as, s->vaddr, s->vaddr + s->memsz, s->prot, f);
	}
	size_t from_segments = as->maps.n;
	for (size_t i = 0; i < cf->files.n; i++)
		add_uncovered(as, cf, &cf->files.v[i]);
	bool any_unknown = as->maps.n > from_segments;
	/* mark the added ones before sorting mixes them in */
	for (size_t i = from_segments; i < as->maps.n; i++)
		as->maps.v[i].prot = PROT_FROM_FILE;
	maps_sort(&as->maps);
	addrspace_index(as);
	if (!any_unknown)
		return;
	for (size_t i = 0; i < as->maps.n; i++)
		if (as->maps.v[i].prot == PROT_FROM_FILE)
			fill_prot(as, i);
}
