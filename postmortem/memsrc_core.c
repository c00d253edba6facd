/* memsrc_core.c — reads from a core, falling back to the mapped files for what it left out. */
#include "memsrc_core.h"

#include <string.h>

/* One contiguous piece at addr: from the core, else from the mapped file; 0 when neither has it. */
static size_t read_piece(struct memsrc_core *m, uint64_t addr, void *buf, size_t len)
{
	const struct core_segment *s = core_segment_at(m->cf, addr);
	if (s) {
		uint64_t rel = addr - s->vaddr;
		if (rel < s->avail) {
			m->from_core++;
			return core_read(m->cf, addr, buf, len);
		}
		if (rel < s->filesz) {
			m->miss.truncated++;
			return 0;
		}
	}
	struct addr_info ai;
	if (addrspace_lookup(m->as, addr, &ai) && ai.mod) {
		size_t n = 0;
		if (ai.mod->img) {
			uint64_t room = ai.map->end - addr;
			n = elf_image_read_file(ai.mod->img, addr - ai.map->start + ai.map->pgoff, buf,
						room < len ? (size_t)room : len);
		}
		if (n)
			m->from_files++;
		else
			m->miss.no_file++;
		return n;
	}
	if (s && (s->prot & MAP_R))
		m->miss.not_dumped++;
	return 0;
}

static ssize_t core_mem_read(struct memsrc *base, uint64_t addr, void *buf, size_t len)
{
	struct memsrc_core *m = (struct memsrc_core *)base;
	size_t done = 0;
	/* piece by piece: a read may span a dumped part, a part left to the file, and the next segment */
	while (done < len && addr + len > addr) {
		size_t n = read_piece(m, addr + done, (char *)buf + done, len - done);
		if (n == 0)
			break;
		done += n;
	}
	return done || len == 0 ? (ssize_t)done : -1;
}

static const struct memsrc_ops core_ops = {.read = core_mem_read, .readv = NULL};

void memsrc_core_init(struct memsrc_core *m, const struct core_file *cf, struct addrspace *as)
{
	memset(m, 0, sizeof(*m));
	m->base.ops = &core_ops;
	m->cf = cf;
	m->as = as;
}
