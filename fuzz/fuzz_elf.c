/* fuzz_elf.c — libFuzzer harness: an ELF image (symtab/elf_image.c, elf_notes.c) from a buffer:
 * program headers (PT_LOAD, PT_TLS, PT_NOTE build-id), section headers, .symtab and .dynsym,
 * reads by virtual address and file offset, symbol lookups, and its .eh_frame parsed by libdw. */
#include <stdlib.h>
#include <string.h>

#include "../symtab/elf_image.h"

static bool visit(void *ctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	size_t *n = ctx;
	(void)value, (void)size, (void)type, (void)shndx;
	*n += strlen(name);
	return *n < (1u << 20);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libelf may treat a memory image as its own: give it a private copy */
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	const char *err;
	struct elf_image *img = elf_image_from_buffer("fuzz.elf", copy, size, &err);
	if (!img) {
		free(copy);
		return 0;
	}
	uint8_t buf[64];
	for (size_t i = 0; i < img->nloads; i++) {
		const struct elf_load *l = &img->loads[i];
		elf_image_read(img, l->vaddr, buf, sizeof(buf));
		elf_image_read(img, l->vaddr + l->filesz, buf, 8);
		elf_image_read(img, l->vaddr + l->memsz - 8, buf, 8);
		elf_image_read(img, l->vaddr, buf, 0);
		elf_image_load_at(img, l->vaddr + l->memsz / 2);
		uint64_t va;
		elf_image_offset_to_vaddr(img, l->offset + l->filesz / 2, &va);
		elf_image_read_file(img, l->offset, buf, sizeof(buf));
	}
	for (size_t i = 0; i < img->nfuncs; i++)
		elf_image_func_at(img, img->funcs[i].addr + img->funcs[i].size / 2);
	size_t names = 0;
	elf_image_foreach_sym(img, visit, &names);
	uint64_t value, symsize;
	elf_image_find_sym(img, "v8dbg_SmiShiftSize", &value, &symsize);
	size_t n;
	elf_image_section(img, ".eh_frame", &n);
	char hex[2 * 64 + 1];
	elf_image_build_id_hex(img, hex);
	elf_image_cfi(img);
	elf_image_close(img);
	free(copy);
	return 0;
}
