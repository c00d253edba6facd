/* core_notes.c — the notes of an x86-64 Linux core. Layouts (kernel ABI, 64-bit):
 *   NT_PRSTATUS  pr_cursig (i16) at 12, pr_pid (i32) at 32, pr_reg (27 × u64) at 112
 *   NT_PRPSINFO  pr_pid at 24, pr_fname[16] at 40, pr_psargs[80] at 56
 *   NT_SIGINFO   si_signo (i32) at 0
 *   NT_FILE      count, page_size, count × {start, end, offset in pages}, count NUL-terminated paths
 *   NT_AUXV      (type, value) u64 pairs up to AT_NULL */
#include "core_notes.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

enum {
	PRSTATUS_CURSIG = 12,
	PRSTATUS_PID = 32,
	PRSTATUS_REG = 112,
	PRPSINFO_PID = 24,
	PRPSINFO_FNAME = 40,
	PRPSINFO_PSARGS = 56,
	PRPSINFO_SIZE = 136,
};

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static int32_t rd32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static void add_thread(struct core_file *cf, const uint8_t *d, size_t n)
{
	if (n < PRSTATUS_REG + CORE_NREGS * 8)
		return;
	cf->threads = xrealloc(cf->threads, (cf->nthreads + 1) * sizeof(*cf->threads));
	struct core_thread *t = &cf->threads[cf->nthreads++];
	memset(t, 0, sizeof(*t));
	int16_t sig;
	memcpy(&sig, d + PRSTATUS_CURSIG, sizeof(sig));
	t->cursig = sig;
	t->tid = rd32(d + PRSTATUS_PID);
	memcpy(t->regs, d + PRSTATUS_REG, sizeof(t->regs));
}

static void copy_cstr(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	size_t k = strnlen((const char *)src, n < cap - 1 ? n : cap - 1);
	memcpy(dst, src, k);
	dst[k] = 0;
}

static void set_psinfo(struct core_file *cf, const uint8_t *d, size_t n)
{
	if (n < PRPSINFO_SIZE)
		return;
	cf->pid = rd32(d + PRPSINFO_PID);
	copy_cstr(cf->fname, sizeof(cf->fname), d + PRPSINFO_FNAME, 16);
	copy_cstr(cf->psargs, sizeof(cf->psargs), d + PRPSINFO_PSARGS, 80);
}

static int cmp_file(const void *a, const void *b)
{
	const struct core_mapped_file *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void set_files(struct core_file *cf, const uint8_t *d, size_t n)
{
	if (n < 16 || cf->have_ntfile)
		return;
	uint64_t count = rd64(d), page = rd64(d + 8);
	if (page == 0 || count > (n - 16) / 24)
		return;
	const char *names = (const char *)d + 16 + count * 24;
	const char *end = (const char *)d + n;
	cf->files = xcalloc(count ? count : 1, sizeof(*cf->files));
	for (uint64_t i = 0; i < count && names < end; i++) {
		size_t len = strnlen(names, (size_t)(end - names));
		const uint8_t *e = d + 16 + i * 24;
		struct core_mapped_file *f = &cf->files[cf->nfiles];
		f->start = rd64(e);
		f->end = rd64(e + 8);
		f->pgoff = rd64(e + 16) * page;
		static const char del[] = " (deleted)";
		size_t keep = len;
		if (len > sizeof(del) - 1 && memcmp(names + len - (sizeof(del) - 1), del, sizeof(del) - 1) == 0) {
			keep = len - (sizeof(del) - 1);
			f->deleted = true;
		}
		f->path = xstrndup(names, keep);
		if (f->end > f->start)
			cf->nfiles++;
		else
			free(f->path);
		names += len + 1;
	}
	qsort(cf->files, cf->nfiles, sizeof(*cf->files), cmp_file);
	cf->have_ntfile = true;
}

static void set_auxv(struct core_file *cf, const uint8_t *d, size_t n)
{
	if (cf->auxv)
		return;
	size_t pairs = n / 16;
	cf->auxv = xcalloc(pairs ? pairs : 1, 16);
	for (size_t i = 0; i < pairs; i++) {
		uint64_t type = rd64(d + 16 * i);
		if (type == AT_NULL)
			break;
		cf->auxv[2 * cf->nauxv] = type;
		cf->auxv[2 * cf->nauxv + 1] = rd64(d + 16 * i + 8);
		cf->nauxv++;
	}
}

bool core_notes_parse(struct core_file *cf, const uint8_t *p, size_t len, struct strbuf *err)
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		size_t next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (desc_off > len || descsz > len - desc_off) {
			if (cf->nthreads)
				break; /* keep what was read; the caller reports missing pieces */
			sb_printf(err, "%s is a damaged core file (a malformed note)", cf->path);
			return false;
		}
		const uint8_t *desc = p + desc_off;
		bool is_core = namesz == 5 && memcmp(p + name_off, "CORE", 5) == 0;
		if (is_core) {
			switch (type) {
			case NT_PRSTATUS: add_thread(cf, desc, descsz); break;
			case NT_PRPSINFO: set_psinfo(cf, desc, descsz); break;
			case NT_FILE: set_files(cf, desc, descsz); break;
			case NT_AUXV: set_auxv(cf, desc, descsz); break;
			case NT_SIGINFO:
				if (cf->nthreads && descsz >= 4)
					cf->threads[cf->nthreads - 1].signo = rd32(desc);
				break;
			default: break;
			}
		}
		off = next;
	}
	return true;
}
