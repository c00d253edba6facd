/* test_elf_image.c — reads by virtual address from ELF files whose program headers lie: offsets
 * near 2^64, zero sizes, addresses whose sums wrap. Every read stays inside the file or fails. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
