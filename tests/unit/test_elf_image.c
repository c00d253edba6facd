/* test_elf_image.c — reads by virtual address from ELF files whose program headers lie: offsets
 * near 2^64, zero sizes, addresses whose sums wrap. Every read stays inside the file or fails.
 * The CFI handed to libdw is the CFI checked: an .eh_frame_hdr search table that points libdw at
 * an FDE the chain never shows, and frame data libdw finds only through PT_GNU_EH_FRAME. */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_defs.h"
#include "../../symtab/elf_image.h"
#include "core_builder.h"

static char dir[] = "/tmp/v8walk-elf-XXXXXX";
static char path[64];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lib.so", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(elf_image, .init = setup, .fini = teardown);

static const uint8_t text[64] = "the real bytes of the one honest segment";

/* An ET_DYN image: one honest PT_LOAD at 0x1000, then the hostile ones the test adds. */
static struct elf_image *image(struct core_builder *b)
{
	b->etype = ET_DYN;
	cb_write(b, path);
	const char *err = NULL;
	struct elf_image *img = elf_image_open(path, &err);
	cr_assert_not_null(img, "%s", err ? err : "");
	return img;
}

Test(elf_image, huge_offset_that_wraps_is_refused)
{
	struct core_builder b;
	cb_init(&b);
	cb_load(&b, 0x1000, sizeof(text), PF_R, text, sizeof(text));
	cb_load(&b, 0x400000, 0x1000, PF_R | PF_X, text, sizeof(text));
	b.loads[1].forced_offset = 0xffffffffffffffe0ULL; /* offset + 32 + len wraps to len */
	struct elf_image *img = image(&b);
	uint8_t buf[16];
	cr_assert(elf_image_read(img, 0x1000, buf, sizeof(buf)), "the honest segment reads");
	cr_assert(memcmp(buf, text, sizeof(buf)) == 0);
	cr_assert_not(elf_image_read(img, 0x400000 + 32, buf, sizeof(buf)),
		      "a segment whose file offset wraps reads nothing (not the file's first bytes)");
	cr_assert_not(elf_image_read(img, 0x400000, buf, sizeof(buf)));
	uint64_t va;
	cr_assert_not(elf_image_offset_to_vaddr(img, 0x10, &va) && va >= 0x400000,
		      "no file offset maps into the wrapped segment");
	elf_image_close(img);
	cb_free(&b);
}

Test(elf_image, address_sum_that_wraps_is_refused)
{
	struct core_builder b;
	cb_init(&b);
	cb_load(&b, 0x0, sizeof(text), PF_R, text, sizeof(text));
	struct elf_image *img = image(&b);
	uint8_t buf[16];
	memset(buf, 0xaa, sizeof(buf));
	/* vaddr + len wraps to 8, inside [0, 64): before the fix this "read" zeros from nowhere */
	cr_assert_not(elf_image_read(img, 0xfffffffffffffff8ULL, buf, sizeof(buf)));
	cr_assert_not(elf_image_read(img, 0x30, buf, sizeof(buf) + 8), "past the segment's end");
	cr_assert(elf_image_read(img, 0x30, buf, sizeof(buf)));
	cr_assert_null(elf_image_load_at(img, 0xfffffffffffffff8ULL));
	elf_image_close(img);
	cb_free(&b);
}

Test(elf_image, zero_sized_segment_with_huge_offset)
{
	struct core_builder b;
	cb_init(&b);
	cb_load(&b, 0x1000, sizeof(text), PF_R, text, sizeof(text));
	cb_load(&b, 0x5000, 0, PF_R, text, 0);
	b.loads[1].forced_offset = 0x8000000000000000ULL;
	struct elf_image *img = image(&b);
	uint8_t buf[8];
	cr_assert_not(elf_image_read(img, 0x5000, buf, sizeof(buf)), "nothing to read in memsz 0");
	cr_assert(elf_image_read(img, 0x5000, buf, 0), "an empty read touches no memory");
	elf_image_close(img);
	cb_free(&b);
}

struct count_ctx {
	size_t n, bytes;
};

static bool count_sym(void *vctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	struct count_ctx *c = vctx;
	(void)value, (void)size, (void)type, (void)shndx;
	c->n++;
	c->bytes += strlen(name);
	return true;
}

/* The target owns its library files: it may truncate one v8walk has open. Reads then fail (or
 * answer from what was already read); v8walk never dies of SIGBUS. */
Test(elf_image, a_library_truncated_while_open_is_survived)
{
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0);
	self[n] = 0;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "cp %s %s", self, path);
	cr_assert_eq(system(cmd), 0);
	const char *err = NULL;
	struct elf_image *img = elf_image_open(path, &err);
	cr_assert_not_null(img, "%s", err ? err : "");
	cr_assert_gt(img->nfuncs, 100);
	const struct elf_sym *fn = elf_image_func_at(img, img->funcs[img->nfuncs / 2].addr);
	cr_assert_not_null(fn);
	uint64_t text = fn->addr;
	uint8_t before[64], after[64];
	cr_assert(elf_image_read(img, text, before, sizeof(before)));
	cr_assert_eq(truncate(path, 4096), 0, "the file is cut to its first page");
	/* everything below touched the file's pages through a mapping before */
	bool ok = elf_image_read(img, text, after, sizeof(after));
	cr_assert(!ok || memcmp(before, after, sizeof(after)) == 0, "a read answers right or fails");
	uint8_t buf[64];
	cr_assert_eq(elf_image_read_file(img, 1 << 20, buf, sizeof(buf)), 0, "nothing past the new end");
	struct count_ctx c = {0};
	elf_image_foreach_sym(img, count_sym, &c); /* symbol names stay readable or are gone */
	cr_assert(fn->name && strlen(fn->name) > 0);
	elf_image_cfi(img);
	size_t size = 0;
	elf_image_section(img, ".rodata", &size);
	elf_image_close(img);
}

/* A file whose offsets are its addresses: one PT_LOAD over all of it, PT_GNU_EH_FRAME over
 * .eh_frame_hdr at HDR, .eh_frame at EH (then zeros: a terminator), and (when `sections`) the
 * section headers naming both. */
enum { HDR = 0x100, EH = 0x200, SHSTR = 0x400, SHDRS = 0x480, FILE_SIZE = SHDRS + 4 * 64,
       PC = 0x1000 };
static uint8_t file[FILE_SIZE];

static struct elf_image *cfi_image(const uint8_t *eh, size_t eh_n, const uint8_t *hdr,
				   size_t hdr_n, bool sections)
{
	static const char shstr[] = "\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
	memset(file, 0, sizeof(file));
	Elf64_Ehdr e = {.e_type = ET_DYN, .e_machine = ARCH_ELF_MACHINE, .e_version = EV_CURRENT,
			.e_phoff = 64, .e_ehsize = sizeof(e), .e_phentsize = sizeof(Elf64_Phdr),
			.e_phnum = 2, .e_shentsize = sizeof(Elf64_Shdr)};
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64, e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	if (sections)
		e.e_shoff = SHDRS, e.e_shnum = 4, e.e_shstrndx = 3;
	memcpy(file, &e, sizeof(e));
	Elf64_Phdr ph[2] = {
	    {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = FILE_SIZE, .p_memsz = PC + 0x100,
	     .p_align = 0x1000},
	    {.p_type = PT_GNU_EH_FRAME, .p_flags = PF_R, .p_offset = HDR, .p_vaddr = HDR,
	     .p_filesz = hdr_n, .p_memsz = hdr_n, .p_align = 4}};
	memcpy(file + 64, ph, sizeof(ph));
	cr_assert(hdr_n <= EH - HDR && eh_n <= SHSTR - EH - 4);
	memcpy(file + HDR, hdr, hdr_n);
	memcpy(file + EH, eh, eh_n);
	memcpy(file + SHSTR, shstr, sizeof(shstr));
	Elf64_Shdr sh[4] = {
	    {0},
	    {.sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = HDR,
	     .sh_offset = HDR, .sh_size = hdr_n, .sh_addralign = 4},
	    {.sh_name = 15, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = EH,
	     .sh_offset = EH, .sh_size = eh_n + 4, .sh_addralign = 8},
	    {.sh_name = 25, .sh_type = SHT_STRTAB, .sh_offset = SHSTR, .sh_size = sizeof(shstr),
	     .sh_addralign = 1}};
	memcpy(file + SHDRS, sh, sizeof(sh));
	const char *err = NULL;
	struct elf_image *img = elf_image_from_buffer("cfi", file, sizeof(file), &err);
	cr_assert_not_null(img, "%s", err ? err : "");
	return img;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* .eh_frame_hdr: .eh_frame at EH (pcrel sdata4), then no count (entries 0), or a table of one
 * entry (datarel sdata4): PC, and the FDE at EH + fde_off. */
static size_t make_hdr(uint8_t *h, bool table, uint32_t fde_off)
{
	h[0] = 1, h[1] = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
	h[2] = table ? DW_EH_PE_udata4 : DW_EH_PE_omit;
	h[3] = DW_EH_PE_datarel | DW_EH_PE_sdata4;
	put32(h + 4, EH - (HDR + 4));
	if (!table)
		return 8;
	put32(h + 8, 1);
	put32(h + 12, PC - HDR);
	put32(h + 16, EH + fde_off - HDR);
	return 20;
}

/* A CIE "zR" (pcrel|sdata4), CFA = rsp + 8, RA at CFA - 8; at 24 an FDE for [PC, PC + 0x40) whose
 * one instruction of 6 bytes (`op`) follows push rbp / CFA = rbp + 16. */
static size_t make_frame(uint8_t *f, const uint8_t op[6])
{
	static const uint8_t base[] = {
	    0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 0x07, 0x08,
	    0x90, 0x01, 0, 0,
	    0x1c, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0x41, 0x0e, 0x10, 0x86, 0x02,
	    0x43, 0x0d, 0x06, 0, 0, 0, 0, 0, 0, 0};
	memcpy(f, base, sizeof(base));
	put32(f + 32, PC - (EH + 32));
	memcpy(f + sizeof(base) - 6, op, 6);
	return sizeof(base);
}

/* A CIE whose initial instructions are one DW_CFA_def_cfa_expression block of 23 bytes, which
 * holds (at 19) what reads as an FDE for [PC, PC + 16) with `op` (6 bytes) as its instructions:
 * the chain has no FDE at all, a table may still name that one. */
static size_t make_hidden(uint8_t *f, const uint8_t op[6])
{
	static const uint8_t cie[] = {38, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1,
				      0x1b, 0x0f, 23};
	memcpy(f, cie, sizeof(cie));
	uint8_t *fde = f + sizeof(cie);
	put32(fde, 19);
	put32(fde + 4, 23); /* back to the CIE at 0 */
	put32(fde + 8, PC - (EH + 19 + 8));
	put32(fde + 12, 16);
	fde[16] = 0;
	memcpy(fde + 17, op, 6);
	return sizeof(cie) + 23;
}

/* DW_CFA_val_offset of register 0x0F7FFFFE: libdw's register table grows to 2 GB for it */
static const uint8_t huge_reg[6] = {0x14, 0xfe, 0xff, 0xff, 0x7b, 0};
/* DW_CFA_offset_extended r16, 1; nops */
static const uint8_t plain_reg[6] = {0x05, 0x10, 0x01, 0, 0, 0};

/* libdw would have read CFI from this image, had it been handed over */
static void libdw_would_load(struct elf_image *img)
{
	Dwarf_CFI *c = dwarf_getcfi_elf(img->elf);
	cr_assert_not_null(c);
	dwarf_cfi_end(c);
}

Test(elf_image, an_eh_frame_hdr_table_entry_off_the_chain_is_refused)
{
	uint8_t eh[64], hdr[32];
	size_t n = make_hidden(eh, huge_reg), hn = make_hdr(hdr, true, 19);
	struct elf_image *img = cfi_image(eh, n, hdr, hn, true);
	libdw_would_load(img);
	cr_assert_null(elf_image_cfi(img), "the table sends libdw to the hidden FDE");
	elf_image_close(img);
	/* a hidden FDE is refused whatever it holds: the check reads only what the chain shows */
	n = make_hidden(eh, plain_reg);
	img = cfi_image(eh, n, hdr, hn, true);
	cr_assert_null(elf_image_cfi(img));
	elf_image_close(img);
	/* the same frame data with no table: libdw walks the chain, which shows no FDE */
	hn = make_hdr(hdr, false, 0);
	n = make_hidden(eh, huge_reg);
	img = cfi_image(eh, n, hdr, hn, true);
	cr_assert_not_null(elf_image_cfi(img));
	elf_image_close(img);
}

Test(elf_image, a_well_formed_eh_frame_hdr_and_frame_are_accepted)
{
	uint8_t eh[64], hdr[32];
	size_t n = make_frame(eh, plain_reg), hn = make_hdr(hdr, true, 24);
	for (int sections = 1; sections >= 0; sections--) {
		struct elf_image *img = cfi_image(eh, n, hdr, hn, sections);
		Dwarf_CFI *cfi = (Dwarf_CFI *)elf_image_cfi(img);
		cr_assert_not_null(cfi, "sections %d", sections);
		Dwarf_Frame *fr = NULL;
		cr_assert_eq(dwarf_cfi_addrframe(cfi, PC + 8, &fr), 0, "%s", dwarf_errmsg(-1));
		free(fr);
		elf_image_close(img);
	}
	/* a table entry that is not an FDE's start (the FDE's own length field + 4) */
	hn = make_hdr(hdr, true, 28);
	struct elf_image *img = cfi_image(eh, n, hdr, hn, true);
	cr_assert_null(elf_image_cfi(img));
	elf_image_close(img);
}

Test(elf_image, frame_data_found_only_through_pt_gnu_eh_frame_is_checked)
{
	uint8_t eh[64], hdr[32];
	/* no section headers: libdw reads .eh_frame where the header's pointer says */
	size_t n = make_frame(eh, huge_reg), hn = make_hdr(hdr, false, 0);
	struct elf_image *img = cfi_image(eh, n, hdr, hn, false);
	libdw_would_load(img);
	cr_assert_null(elf_image_cfi(img), "the FDE names register 0x0F7FFFFE");
	elf_image_close(img);
	/* and the search table there too */
	n = make_hidden(eh, huge_reg), hn = make_hdr(hdr, true, 19);
	img = cfi_image(eh, n, hdr, hn, false);
	libdw_would_load(img);
	cr_assert_null(elf_image_cfi(img));
	elf_image_close(img);
	n = make_frame(eh, plain_reg), hn = make_hdr(hdr, false, 0);
	img = cfi_image(eh, n, hdr, hn, false);
	cr_assert_not_null(elf_image_cfi(img));
	elf_image_close(img);
}

struct func_check {
	const struct elf_image *img;
	unsigned long checked;
};

static bool func_is_indexed(void *vctx, const char *name, uint64_t value, uint64_t size, int type,
			    int shndx)
{
	struct func_check *c = vctx;
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF || value == 0 || !*name)
		return true;
	const struct elf_sym *f = elf_image_func_at(c->img, value);
	cr_assert_not_null(f, "%s at %#lx is indexed", name, (unsigned long)value);
	cr_assert_eq(f->addr, value, "%s at %#lx: the function there starts there", name, (unsigned long)value);
	if (size)
		cr_assert_neq(f->size, 0, "%s at %#lx: a sized symbol there is kept before an unsized one", name,
			      (unsigned long)value);
	c->checked++;
	return true;
}

/* The function index of a real file (this test binary, thousands of functions): ordered by address,
 * one symbol an address, every function symbol found at its address, a sized one kept there
 * before an unsized one. */
Test(elf_image, the_function_index_of_a_real_file_is_ordered_and_whole)
{
	const char *err = NULL;
	struct elf_image *img = elf_image_open("/proc/self/exe", &err);
	cr_assert_not_null(img, "%s", err ? err : "");
	cr_assert_gt(img->nfuncs, 1000);
	for (size_t i = 1; i < img->nfuncs; i++)
		cr_assert_lt(img->funcs[i - 1].addr, img->funcs[i].addr, "entries %zu and %zu", i - 1, i);
	struct func_check c = {.img = img};
	elf_image_foreach_sym(img, func_is_indexed, &c);
	cr_assert_gt(c.checked, 1000);
	elf_image_close(img);
}

/* The sort under the index against its definition: by address, sized first at one address, else
 * in the order given; addresses over all 64 bits, runs of equal ones, n of 0 to 2,000. */
Test(elf_image, symbols_sort_by_address_sized_first_else_as_given)
{
	unsigned seed = 3;
	struct elf_sym *a = malloc(2000 * sizeof(*a));
	for (size_t n = 0; n <= 2000; n = n < 10 ? n + 1 : n * 3 / 2) {
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			uint64_t r = seed >> 8;
			/* few distinct addresses, so that many share one; some with high bytes set */
			uint64_t addr = (r % 97) << (r % 3 ? 4 : 40);
			a[i] = (struct elf_sym){.addr = addr, .size = r % 4 ? 16 : 0, .name = (const char *)(uintptr_t)(i + 1)};
		}
		elf_sym_sort(a, n);
		for (size_t i = 1; i < n; i++) {
			const struct elf_sym *x = &a[i - 1], *y = &a[i];
			cr_assert_leq(x->addr, y->addr, "n %zu: entries %zu and %zu by address", n, i - 1, i);
			if (x->addr != y->addr)
				continue;
			cr_assert(x->size || !y->size, "n %zu: entry %zu sized before an unsized one", n, i - 1);
			if (!x->size == !y->size)
				cr_assert_lt((uintptr_t)x->name, (uintptr_t)y->name, "n %zu: as given at one address", n);
		}
		size_t sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += (uintptr_t)a[i].name;
		cr_assert_eq(sum, n * (n + 1) / 2, "n %zu: every entry once", n);
	}
	free(a);
}
