/* elf_image.h — one ELF file on disk (node, libnode.so, libc, …): program headers, build-id,
 * function symbols from .symtab and .dynsym, reads by virtual address, and its .eh_frame CFI. */
#ifndef V8WALK_ELF_IMAGE_H
#define V8WALK_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/safe_open.h"

/* No ELF file larger than this is read (node with debug info is well below). */
#define ELF_IMAGE_MAX_SIZE (4ULL << 30)

struct Elf;
struct Dwarf_CFI_s;

struct elf_load {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags; /* PF_R | PF_W | PF_X */
};

struct elf_sym {
	uint64_t addr, size;
	const char *name; /* points into the mapped file */
};

struct elf_image {
	char *path;
	int fd;              /* read with pread; nothing is mapped (a truncated file is no SIGBUS);
			      * -1 for a buffer given by the caller */
	const uint8_t *data; /* that buffer (elf_image_from_buffer), else NULL */
	size_t size;         /* at open */
	struct Elf *elf;
	uint16_t etype;
	struct elf_load *loads;
	size_t nloads;
	uint8_t build_id[64];
	size_t build_id_len;
	uint64_t tls_memsz, tls_align;
	bool has_symtab; /* a full .symtab (not stripped) */
	struct elf_sym *funcs; /* function symbols sorted by address, both tables merged */
	size_t nfuncs;
	struct Dwarf_CFI_s *cfi;
	bool cfi_loaded;
	struct elf_image *debug; /* separate debug file found by build-id (its .symtab names) */
};

/* Open and index an ELF file the user named (symlinks followed, not a FIFO or device, size
 * bounded); on failure returns NULL and sets *err to a static reason. A stripped
 * file's function symbols are completed from /usr/lib/debug/.build-id/xx/yyyy.debug when the
 * distribution's debug package is installed. */
struct elf_image *elf_image_open(const char *path, const char **err);
/* The same for a file a target or a core names: opened as *ex says (util/safe_open.h). path is
 * the target's path, resolved inside ex->root. */
struct elf_image *elf_image_open_as(const char *path, const struct file_expect *ex, const char **err);
/* Index an ELF file held in the caller's buffer, which must outlive the image and be writable
 * memory libelf may treat as its own (fuzzing, tests); no separate debug file is looked up. */
struct elf_image *elf_image_from_buffer(const char *name, const uint8_t *data, size_t size,
					const char **err);
void elf_image_close(struct elf_image *img);

/* Read len bytes at a link-time virtual address (NOBITS reads as zeros). */
bool elf_image_read(const struct elf_image *img, uint64_t vaddr, void *buf, size_t len);
/* Copy up to len bytes at file offset off; returns how many (0 past the end of the file). */
size_t elf_image_read_file(const struct elf_image *img, uint64_t off, void *buf, size_t len);
/* Translate a file offset to a link-time virtual address through the PT_LOADs. */
bool elf_image_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr);
/* The function symbol containing vaddr (size-0 symbols extend to the next one, bounded). */
const struct elf_sym *elf_image_func_at(const struct elf_image *img, uint64_t vaddr);
/* Order symbols by address, the sized before the unsized at one address, the rest in the order
 * given (how the function index is built; shared with tests). */
void elf_sym_sort(struct elf_sym *a, size_t n);

/* Visit every symbol of .symtab and .dynsym (any type); stop when cb returns false. */
typedef bool (*elf_sym_cb)(void *ctx, const char *name, uint64_t value, uint64_t size, int type,
			   int shndx);
void elf_image_foreach_sym(const struct elf_image *img, elf_sym_cb cb, void *ctx);
/* Find one symbol by exact name (either table); returns false when absent. */
bool elf_image_find_sym(const struct elf_image *img, const char *name, uint64_t *value,
			uint64_t *size);
/* The bytes of a section in the file (NULL when absent, NOBITS, or no longer readable), read once
 * and kept until the image is closed. */
const uint8_t *elf_image_section(const struct elf_image *img, const char *name, size_t *size);
/* Where a section lies in the file (offset and size, inside the file; not NOBITS), without
 * reading it: for large sections read a piece at a time (elf_image_read_file). */
bool elf_image_section_range(const struct elf_image *img, const char *name, uint64_t *offset,
			     size_t *size);
/* The link-time address of a section (false when absent). */
bool elf_image_section_vaddr(const struct elf_image *img, const char *name, uint64_t *vaddr);
/* Find the executable PT_LOAD containing vaddr. */
const struct elf_load *elf_image_load_at(const struct elf_image *img, uint64_t vaddr);
/* Hex form of a build-id; buf needs 2*len+1 bytes. */
const char *build_id_hex(const uint8_t *id, size_t len, char *buf);
/* Hex form of the build-id ("" when absent); buf needs 2*64+1 bytes. */
const char *elf_image_build_id_hex(const struct elf_image *img, char *buf);
/* .eh_frame CFI (loaded on first use; NULL when absent). */
struct Dwarf_CFI_s *elf_image_cfi(struct elf_image *img);

#endif
