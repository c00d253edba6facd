/* core_builder.c — synthetic ELF cores for unit tests. */
#include "core_builder.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_defs.h"
#include "../../util/xalloc.h"

void cb_init(struct core_builder *b)
{
	memset(b, 0, sizeof(*b));
	b->etype = ET_CORE;
}

void cb_free(struct core_builder *b)
{
	free(b->notes);
	memset(b, 0, sizeof(*b));
}

static void put(struct core_builder *b, const void *p, size_t n)
{
	XGROW(b->notes, b->capnotes, b->nnotes + n + 4);
	memcpy(b->notes + b->nnotes, p, n);
	b->nnotes += n;
	while (b->nnotes % 4)
		b->notes[b->nnotes++] = 0;
}

static void note(struct core_builder *b, uint32_t type, const void *desc, uint32_t descsz)
{
	uint32_t hdr[3] = {5, descsz, type};
	put(b, hdr, sizeof(hdr));
	put(b, "CORE", 5);
	put(b, desc, descsz);
}

void cb_thread(struct core_builder *b, pid_t tid, int cursig, uint64_t rip, uint64_t rsp)
{
	uint8_t d[112 + ARCH_PRSTATUS_NREGS * 8 + 8] = {0}; /* pr_reg, then pr_fpvalid and padding */
	int16_t sig = (int16_t)cursig;
	int32_t pid = tid;
	memcpy(d + 12, &sig, 2);
	memcpy(d + 32, &pid, 4);
	memcpy(d + 112 + ARCH_PRSTATUS_PC * 8, &rip, 8);
	memcpy(d + 112 + ARCH_PRSTATUS_SP * 8, &rsp, 8);
	note(b, NT_PRSTATUS, d, sizeof(d));
}

void cb_siginfo(struct core_builder *b, int signo)
{
	uint8_t d[128] = {0};
	memcpy(d, &signo, 4);
	note(b, 0x53494749, d, sizeof(d));
}

void cb_psinfo(struct core_builder *b, pid_t pid, const char *fname)
{
	uint8_t d[136] = {0};
	int32_t p = pid;
	memcpy(d + 24, &p, 4);
	size_t n = strlen(fname);
	memcpy(d + 40, fname, n < 15 ? n : 15);
	memcpy(d + 56, fname, n < 79 ? n : 79);
	note(b, NT_PRPSINFO, d, sizeof(d));
}

void cb_files(struct core_builder *b, const struct cb_file *files, size_t n)
{
	size_t len = 16 + 24 * n;
	for (size_t i = 0; i < n; i++)
		len += strlen(files[i].path) + 1;
	uint8_t *d = xcalloc(1, len);
	uint64_t head[2] = {n, 4096};
	memcpy(d, head, 16);
	char *names = (char *)d + 16 + 24 * n;
	for (size_t i = 0; i < n; i++) {
		uint64_t e[3] = {files[i].start, files[i].end, files[i].pgoff_pages};
		memcpy(d + 16 + 24 * i, e, 24);
		strcpy(names, files[i].path);
		names += strlen(files[i].path) + 1;
	}
	note(b, 0x46494c45, d, (uint32_t)len);
	free(d);
}

void cb_auxv(struct core_builder *b, const uint64_t *pairs, size_t npairs)
{
	uint64_t *d = xcalloc(npairs + 1, 16);
	memcpy(d, pairs, npairs * 16);
	note(b, NT_AUXV, d, (uint32_t)((npairs + 1) * 16));
	free(d);
}

void cb_load(struct core_builder *b, uint64_t vaddr, uint64_t memsz, uint32_t flags,
	     const void *data, size_t filesz)
{
	cr_assert_lt(b->nloads, CB_MAX_LOADS);
	b->loads[b->nloads].vaddr = vaddr;
	b->loads[b->nloads].memsz = memsz;
	b->loads[b->nloads].flags = flags;
	b->loads[b->nloads].data = data;
	b->loads[b->nloads].filesz = filesz;
	b->loads[b->nloads].forced_offset = 0;
	b->nloads++;
}

size_t cb_write(struct core_builder *b, const char *path)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	size_t nph = 1 + b->nloads;
	Elf64_Ehdr eh = {0};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = b->etype;
	eh.e_machine = ARCH_ELF_MACHINE;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)nph;
	fwrite(&eh, sizeof(eh), 1, f);
	uint64_t notes_off = sizeof(eh) + nph * sizeof(Elf64_Phdr);
	Elf64_Phdr ph = {.p_type = PT_NOTE, .p_offset = notes_off, .p_filesz = b->nnotes, .p_align = 4};
	fwrite(&ph, sizeof(ph), 1, f);
	uint64_t off = (notes_off + b->nnotes + 4095) & ~4095ULL;
	uint64_t offs[CB_MAX_LOADS];
	for (size_t i = 0; i < b->nloads; i++) {
		offs[i] = off;
		uint64_t forced = b->loads[i].forced_offset;
		Elf64_Phdr l = {.p_type = PT_LOAD, .p_flags = b->loads[i].flags,
				.p_offset = forced ? forced : off,
				.p_vaddr = b->loads[i].vaddr, .p_filesz = b->loads[i].filesz,
				.p_memsz = b->loads[i].memsz, .p_align = 4096};
		fwrite(&l, sizeof(l), 1, f);
		off += (b->loads[i].filesz + 4095) & ~4095ULL;
	}
	if (b->nnotes)
		fwrite(b->notes, 1, b->nnotes, f);
	for (size_t i = 0; i < b->nloads; i++) {
		fseek(f, (long)offs[i], SEEK_SET);
		fwrite(b->loads[i].data, 1, b->loads[i].filesz, f);
	}
	size_t size = (size_t)off;
	cr_assert_eq(ftruncate(fileno(f), (off_t)size), 0);
	fclose(f);
	return size;
}
