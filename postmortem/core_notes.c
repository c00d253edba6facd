/* core_notes.c — the notes of a Linux core of the machine v8walk runs on. Layouts (kernel ABI,
 * 64-bit, the same on x86-64 and arm64 but for pr_reg's size):
 *   NT_PRSTATUS  pr_cursig (i16) at 12, pr_pid (i32) at 32, pr_reg (CORE_NREGS × u64) at 112
 *   NT_ARM_PAC_MASK  data_mask, insn_mask (u64 each)
 *   NT_PRPSINFO  pr_pid at 24, pr_fname[16] at 40, pr_psargs[80] at 56
 *   NT_SIGINFO   si_signo (i32) at 0
 *   NT_FILE      count, page_size, count × {start, end, offset in pages}, count NUL-terminated paths
 *   NT_AUXV      (type, value) u64 pairs up to AT_NULL */
#include "core_notes.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../symtab/elf_notes.h"
#include "../util/xalloc.h"

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_ARM_PAC_MASK
#define NT_ARM_PAC_MASK 0x406
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

static void set_files(struct core_file *cf, const uint8_t *d, size_t n)
{
	if (n < 16 || cf->have_ntfile)
		return;
	uint64_t count = rd64(d), page = rd64(d + 8);
	if (page == 0 || count > (n - 16) / 24)
		return;
	const char *names = (const char *)d + 16 + count * 24;
	const char *end = (const char *)d + n;
	for (uint64_t i = 0; i < count && names < end; i++) {
		size_t len = strnlen(names, (size_t)(end - names));
		const uint8_t *e = d + 16 + i * 24;
		struct mapping m = {.start = rd64(e), .end = rd64(e + 8)};
		bool pgoff_ok = !__builtin_mul_overflow(rd64(e + 16), page, &m.pgoff);
		static const char del[] = " (deleted)";
		size_t keep = len;
		if (len > sizeof(del) - 1 && memcmp(names + len - (sizeof(del) - 1), del, sizeof(del) - 1) == 0) {
			keep = len - (sizeof(del) - 1);
			m.deleted = true;
		}
		char *path = xstrndup(names, keep);
		m.path = path;
		if (m.end > m.start && pgoff_ok) /* an offset past 2^64 names no byte of any file */
			maps_add(&cf->files, &m);
		free(path);
		names += len + 1;
	}
	maps_sort(&cf->files);
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
	struct elf_note n;
	while (elf_note_next(p, len, &off, &n)) {
		if (!elf_note_named(&n, "CORE"))
			continue;
		switch (n.type) {
		case NT_PRSTATUS: add_thread(cf, n.desc, n.descsz); break;
		case NT_PRPSINFO: set_psinfo(cf, n.desc, n.descsz); break;
		case NT_FILE: set_files(cf, n.desc, n.descsz); break;
		case NT_AUXV: set_auxv(cf, n.desc, n.descsz); break;
		case NT_ARM_PAC_MASK: /* {data_mask, insn_mask}: the return addresses' is insn_mask */
			if (n.descsz >= 16)
				cf->pac_mask = rd64(n.desc + 8);
			break;
		case NT_SIGINFO:
			if (cf->nthreads && n.descsz >= 4)
				cf->threads[cf->nthreads - 1].signo = rd32(n.desc);
			break;
		default: break;
		}
	}
	/* a note that does not fit: keep what was read if there are threads, the caller reports
	 * what is missing */
	if (off < len && len - off >= 12 && cf->nthreads == 0) {
		sb_printf(err, "%s is a damaged core file (a malformed note)", cf->path);
		return false;
	}
	return true;
}
