/* core_file.c — opening a core: ELF header checks, the PT_LOAD segments (sorted, clipped to what
 * the file really holds), the notes (core_notes.c), and reads of the dumped bytes. */
#include "core_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch_defs.h"
#include "../symtab/maps.h"
#include "../util/interval.h"
#include "../util/xalloc.h"
#include "core_notes.h"

static const char *etype_name(unsigned t)
{
	switch (t) {
	case ET_EXEC: return "an executable";
	case ET_DYN: return "a shared object or PIE executable";
	case ET_REL: return "an object file";
	default: return "an ELF file of an unknown type";
	}
}

static uint32_t prot_of(uint32_t pflags)
{
	return ((pflags & PF_R) ? MAP_R : 0) | ((pflags & PF_W) ? MAP_W : 0) |
	       ((pflags & PF_X) ? MAP_X : 0);
}

static int cmp_seg(const void *a, const void *b)
{
	const struct core_segment *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static bool check_header(struct core_file *cf, Elf64_Ehdr *eh, struct strbuf *err)
{
	if (cf->size < SELFMAG || memcmp(cf->data, ELFMAG, SELFMAG) != 0) {
		sb_printf(err, "%s is not a core file (not ELF)", cf->path);
		return false;
	}
	if (cf->size < sizeof(*eh)) {
		sb_printf(err, "%s is truncated: it ends inside its ELF header", cf->path);
		return false;
	}
	memcpy(eh, cf->data, sizeof(*eh));
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != ARCH_ELF_MACHINE) {
		sb_printf(err, "%s is not an " ARCH_NAME " ELF file (this v8walk reads " ARCH_NAME
			       " Linux cores)", cf->path);
		return false;
	}
	if (eh->e_type != ET_CORE) {
		sb_printf(err, "%s is %s, not a core file", cf->path, etype_name(eh->e_type));
		return false;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0) {
		sb_printf(err, "%s is a damaged core file (no usable program headers)", cf->path);
		return false;
	}
	if (eh->e_phoff > cf->size || (cf->size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) {
		sb_printf(err, "%s is truncated: it ends inside its program headers (%zu bytes left)",
			  cf->path, cf->size);
		return false;
	}
	return true;
}

/* Index the PT_LOADs and parse the PT_NOTEs. */
static bool read_phdrs(struct core_file *cf, const Elf64_Ehdr *eh, struct strbuf *err)
{
	cf->segs = xcalloc(eh->e_phnum, sizeof(*cf->segs));
	bool notes_seen = false;
	for (size_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, cf->data + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE) {
			if (ph.p_offset > cf->size || ph.p_filesz > cf->size - ph.p_offset) {
				sb_printf(err, "%s is truncated: it ends inside its notes (threads and mapped "
					       "files are lost; %zu bytes present)", cf->path, cf->size);
				return false;
			}
			if (!core_notes_parse(cf, cf->data + ph.p_offset, ph.p_filesz, err))
				return false;
			notes_seen = true;
			continue;
		}
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0 || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		struct core_segment *s = &cf->segs[cf->nsegs++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->end = ph.p_vaddr + ph.p_memsz;
		s->filesz = ph.p_filesz < ph.p_memsz ? ph.p_filesz : ph.p_memsz;
		s->offset = ph.p_offset;
		s->prot = prot_of(ph.p_flags);
		s->avail = 0;
		if (s->offset < cf->size)
			s->avail = cf->size - s->offset < s->filesz ? cf->size - s->offset : s->filesz;
		uint64_t seg_end;
		if (__builtin_add_overflow(s->offset, s->filesz, &seg_end))
			seg_end = UINT64_MAX;
		if (s->filesz && seg_end > cf->expected_size)
			cf->expected_size = seg_end;
		if (s->avail < s->filesz)
			cf->truncated = true;
	}
	if (!notes_seen || cf->nthreads == 0) {
		sb_printf(err, "%s is a damaged core file: it has no thread registers (NT_PRSTATUS)",
			  cf->path);
		return false;
	}
	if (cf->nsegs)
		qsort(cf->segs, cf->nsegs, sizeof(*cf->segs), cmp_seg);
	return true;
}

/* The header, segments and notes of cf->data; on failure the core is closed. */
static bool index_core(struct core_file *cf, struct strbuf *err)
{
	Elf64_Ehdr eh;
	if (!check_header(cf, &eh, err) || !read_phdrs(cf, &eh, err)) {
		core_file_close(cf);
		return false;
	}
	return true;
}

bool core_file_open(struct core_file *cf, const char *path, struct strbuf *err)
{
	memset(cf, 0, sizeof(*cf));
	cf->fd = -1;
	cf->path = xstrdup(path);
	/* O_NONBLOCK: a FIFO named as the core must not hang the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		sb_printf(err, "cannot open core file %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		sb_printf(err, "%s is not a regular file", path);
	else if (st.st_size == 0)
		sb_printf(err, "%s is empty (a core limited by ulimit -c 0, or the write failed)", path);
	else
		cf->data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	cf->fd = fd;
	if (cf->data == MAP_FAILED) {
		sb_printf(err, "cannot map core file %s: %s", path, strerror(errno));
		cf->data = NULL;
	}
	if (!cf->data) { /* every error path frees what it took (the path copy, the descriptor) */
		core_file_close(cf);
		return false;
	}
	cf->size = (size_t)st.st_size;
	return index_core(cf, err);
}

bool core_file_from_buffer(struct core_file *cf, const char *name, const uint8_t *data, size_t size,
			   struct strbuf *err)
{
	memset(cf, 0, sizeof(*cf));
	cf->fd = -1;
	cf->path = xstrdup(name);
	cf->data = data;
	cf->size = size;
	cf->borrowed = true;
	return index_core(cf, err);
}

void core_file_close(struct core_file *cf)
{
	if (cf->data && !cf->borrowed)
		munmap((void *)cf->data, cf->size);
	if (cf->fd >= 0)
		close(cf->fd);
	maps_free(&cf->files);
	free(cf->segs);
	free(cf->threads);
	free(cf->auxv);
	free(cf->path);
	memset(cf, 0, sizeof(*cf));
	cf->fd = -1;
}

const struct core_segment *core_segment_at(const struct core_file *cf, uint64_t addr)
{
	size_t i = interval_upper(cf->segs, cf->nsegs, sizeof(*cf->segs),
				  offsetof(struct core_segment, end), addr);
	return i < cf->nsegs && cf->segs[i].vaddr <= addr ? &cf->segs[i] : NULL;
}

size_t core_read(const struct core_file *cf, uint64_t addr, void *buf, size_t len)
{
	const struct core_segment *s = core_segment_at(cf, addr);
	if (!s || addr - s->vaddr >= s->avail)
		return 0;
	uint64_t rel = addr - s->vaddr;
	size_t n = s->avail - rel < len ? (size_t)(s->avail - rel) : len;
	memcpy(buf, cf->data + s->offset + rel, n);
	return n;
}

bool core_auxv(const struct core_file *cf, uint64_t type, uint64_t *value)
{
	for (size_t i = 0; i < cf->nauxv; i++) {
		if (cf->auxv[2 * i] == type) {
			*value = cf->auxv[2 * i + 1];
			return true;
		}
	}
	return false;
}

const struct core_thread *core_crashed_thread(const struct core_file *cf)
{
	/* gcore writes pr_cursig 0 and a SIGSTOP siginfo for every thread it stopped */
	if (cf->nthreads == 0 || cf->threads[0].cursig == 0)
		return NULL;
	return &cf->threads[0];
}
