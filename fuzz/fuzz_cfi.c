/* fuzz_cfi.c — libFuzzer harness: .eh_frame CFI (walker/cfi.c over libdw). The input is a
 * header (where .eh_frame is linked, the PC to unwind, registers) and the section's bytes; the
 * harness wraps them in a minimal ELF file and takes up to four unwind steps through the rule
 * cache, against a memory that answers every address (so every rule's reads succeed). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../walker/cfi.h"

struct cfi_input_header {
	uint64_t eh_vaddr; /* sh_addr of .eh_frame (its pc-relative pointers count from here) */
	uint64_t pc;       /* link-time PC of the first step */
	uint64_t sp, fp;   /* rsp and rbp of the first frame */
};

static ssize_t any_read(struct memsrc *m, uint64_t addr, void *buf, size_t len)
{
	(void)m;
	uint8_t *b = buf;
	for (size_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		b[i] = (uint8_t)((a >> 3) * 0x9e3779b97f4a7c15ull >> (8 * (a & 7)));
	}
	return (ssize_t)len;
}

static const struct memsrc_ops any_ops = {.read = any_read};

static const char shstrtab[] = "\0.eh_frame\0.shstrtab";

/* ELF header, .eh_frame bytes, .shstrtab, three section headers (null, .eh_frame, .shstrtab). */
static uint8_t *wrap_elf(const struct cfi_input_header *hd, const uint8_t *eh, size_t n,
			 size_t *size)
{
	size_t eh_off = sizeof(Elf64_Ehdr), str_off = eh_off + n;
	size_t sh_off = (str_off + sizeof(shstrtab) + 7) & ~(size_t)7;
	*size = sh_off + 3 * sizeof(Elf64_Shdr);
	uint8_t *f = calloc(1, *size);
	Elf64_Ehdr e = {.e_type = ET_DYN, .e_machine = ARCH_ELF_MACHINE, .e_version = EV_CURRENT,
			.e_shoff = sh_off, .e_ehsize = sizeof(Elf64_Ehdr),
			.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3, .e_shstrndx = 2};
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(f, &e, sizeof(e));
	memcpy(f + eh_off, eh, n);
	memcpy(f + str_off, shstrtab, sizeof(shstrtab));
	Elf64_Shdr sh[3] = {{0},
			    {.sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			     .sh_addr = hd->eh_vaddr, .sh_offset = eh_off, .sh_size = n, .sh_addralign = 8},
			    {.sh_name = 11, .sh_type = SHT_STRTAB, .sh_offset = str_off,
			     .sh_size = sizeof(shstrtab), .sh_addralign = 1}};
	memcpy(f + sh_off, sh, sizeof(sh));
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_input_header hd;
	if (size < sizeof(hd))
		return 0;
	memcpy(&hd, data, sizeof(hd));
	size_t fsize;
	uint8_t *file = wrap_elf(&hd, data + sizeof(hd), size - sizeof(hd), &fsize);
	const char *err;
	struct elf_image *img = elf_image_from_buffer("fuzz.eh_frame", file, fsize, &err);
	if (!img) {
		free(file);
		return 0;
	}
	struct memsrc mem = {.ops = &any_ops};
	struct cfi_cache cache;
	cfi_cache_init(&cache, 64);
	struct regset in = {0}, out;
	reg_set(&in, REG_PC, hd.pc);
	reg_set(&in, REG_SP, hd.sp);
	reg_set(&in, REG_FP, hd.fp);
	uint64_t vaddr = hd.pc;
	for (int step = 0; step < 4; step++) {
		bool signal_frame = false;
		memset(&out, 0, sizeof(out));
		if (cfi_step(&cache, img, vaddr, &in, &out, &mem, &signal_frame) != CFI_OK)
			break;
		/* the same PC again: the cached rule this time */
		cfi_step(&cache, img, vaddr, &in, &out, &mem, &signal_frame);
		in = out;
		vaddr = out.r[REG_PC] - (signal_frame ? 0 : 1);
	}
	cfi_cache_free(&cache);
	elf_image_close(img);
	free(file);
	return 0;
}
