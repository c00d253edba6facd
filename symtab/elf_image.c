/* elf_image.c — open, index and read an ELF file with libelf; CFI through libdw. */
#include "elf_image.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch_defs.h"
#include "../util/xalloc.h"
#include "eh_frame_check.h"
#include "elf_notes.h"

enum { SIZELESS_SYM_SPAN = 4096, MAX_NOTE_BYTES = 1 << 16 };

static void read_phdrs(struct elf_image *img)
{
	size_t n = 0;
	if (elf_getphdrnum(img->elf, &n) != 0)
		return;
	img->loads = xcalloc(n ? n : 1, sizeof(*img->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(img->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD) {
			img->loads[img->nloads++] = (struct elf_load){
			    .vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .offset = ph.p_offset,
			    .filesz = ph.p_filesz, .flags = ph.p_flags};
		} else if (ph.p_type == PT_TLS) {
			img->tls_memsz = ph.p_memsz;
			img->tls_align = ph.p_align;
		} else if (ph.p_type == PT_NOTE && !img->build_id_len && ph.p_offset <= img->size &&
			   ph.p_filesz <= img->size - ph.p_offset && ph.p_filesz <= MAX_NOTE_BYTES) {
			uint8_t *notes = xmalloc(ph.p_filesz ? ph.p_filesz : 1);
			if (elf_image_read_file(img, ph.p_offset, notes, ph.p_filesz) == ph.p_filesz)
				img->build_id_len = elf_notes_build_id(notes, ph.p_filesz, img->build_id,
									sizeof(img->build_id));
			free(notes);
		}
	}
}

/* A stable radix sort, a byte of the address a pass (passes where every address has the same byte
 * are skipped), after a pass that puts the sized first. node's 150,000 functions from .symtab and
 * .dynsym took qsort ~60 ms of every attach. */
void elf_sym_sort(struct elf_sym *a, size_t n)
{
	if (n < 2)
		return;
	struct elf_sym *tmp = xmalloc(n * sizeof(*tmp));
	size_t w = 0;
	for (int sized = 1; sized >= 0; sized--)
		for (size_t i = 0; i < n; i++)
			if ((a[i].size != 0) == sized)
				tmp[w++] = a[i];
	memcpy(a, tmp, n * sizeof(*a));
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {0};
		for (size_t i = 0; i < n; i++)
			count[a[i].addr >> shift & 0xff]++;
		if (count[a[0].addr >> shift & 0xff] == n)
			continue; /* one byte for all */
		size_t at[256], sum = 0;
		for (int b = 0; b < 256; b++)
			at[b] = sum, sum += count[b];
		for (size_t i = 0; i < n; i++)
			tmp[at[a[i].addr >> shift & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
	free(tmp);
}

struct collect_ctx {
	struct elf_image *img;
	size_t cap;
};

static bool collect_func(void *vctx, const char *name, uint64_t value, uint64_t size, int type,
			 int shndx)
{
	struct collect_ctx *c = vctx;
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF || value == 0 ||
	    !name || !*name)
		return true;
	XGROW(c->img->funcs, c->cap, c->img->nfuncs + 1);
	c->img->funcs[c->img->nfuncs++] = (struct elf_sym){.addr = value, .size = size, .name = name};
	return true;
}

static struct elf_image *open_plain(const char *path, const struct file_expect *ex,
				     const char **err);

/* A stripped library's .symtab may be installed separately, keyed by build-id. */
static struct elf_image *find_debug_file(const struct elf_image *img)
{
	if (img->has_symtab || img->build_id_len < 2)
		return NULL;
	char hex[2 * 64 + 1], path[256];
	elf_image_build_id_hex(img, hex);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	const char *err;
	struct elf_image *dbg = open_plain(path, &(struct file_expect){.follow = true}, &err);
	if (dbg && (dbg->build_id_len != img->build_id_len ||
		    memcmp(dbg->build_id, img->build_id, img->build_id_len) != 0)) {
		elf_image_close(dbg);
		return NULL;
	}
	return dbg;
}

static void index_funcs(struct elf_image *img)
{
	struct collect_ctx c = {.img = img, .cap = 0};
	elf_image_foreach_sym(img, collect_func, &c);
	if (img->debug)
		elf_image_foreach_sym(img->debug, collect_func, &c);
	if (!img->nfuncs)
		return;
	elf_sym_sort(img->funcs, img->nfuncs);
	size_t w = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		if (w && img->funcs[w - 1].addr == img->funcs[i].addr)
			continue; /* keep the first (sized) symbol at an address */
		img->funcs[w++] = img->funcs[i];
	}
	img->nfuncs = w;
}

/* Index an ELF file read with pread from fd, or held in the caller's buffer (fd -1). On failure
 * the caller still owns fd. */
static struct elf_image *index_image(const char *path, int fd, const uint8_t *data, size_t size,
				     const char **err)
{
	/* nothing of a file is mapped: the target may truncate it while it is open, and a read from
	 * a mapping past the new end is SIGBUS. libelf reads what it needs with pread (ELF_C_READ)
	 * into its own buffers, and so does elf_image_read. */
	char magic[SELFMAG];
	if (size < 64 || (fd >= 0 ? pread(fd, magic, SELFMAG, 0) != SELFMAG
				  : (memcpy(magic, data, SELFMAG), false)) ||
	    memcmp(magic, ELFMAG, SELFMAG) != 0) {
		*err = "not an ELF file";
		return NULL;
	}
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : elf_memory((char *)data, size);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh) || gelf_getclass(elf) != ELFCLASS64 ||
	    eh.e_machine != ARCH_ELF_MACHINE) {
		if (elf)
			elf_end(elf);
		*err = "not an " ARCH_NAME " ELF file";
		return NULL;
	}
	struct elf_image *img = xcalloc(1, sizeof(*img));
	img->path = xstrdup(path);
	img->fd = fd;
	img->data = fd >= 0 ? NULL : data;
	img->size = size;
	img->elf = elf;
	img->etype = eh.e_type;
	read_phdrs(img);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			img->has_symtab = true;
	}
	return img;
}

static struct elf_image *open_plain(const char *path, const struct file_expect *ex, const char **err)
{
	elf_version(EV_CURRENT); /* idempotent */
	struct file_expect bounded = *ex;
	if (!bounded.max_size || bounded.max_size > ELF_IMAGE_MAX_SIZE)
		bounded.max_size = ELF_IMAGE_MAX_SIZE;
	struct stat st;
	int fd = safe_open(path, &bounded, &st, err);
	if (fd < 0)
		return NULL;
	if (st.st_size < 64) {
		close(fd);
		*err = "not an ELF file";
		return NULL;
	}
	struct elf_image *img = index_image(path, fd, NULL, (size_t)st.st_size, err);
	if (!img)
		close(fd);
	return img;
}

struct elf_image *elf_image_from_buffer(const char *name, const uint8_t *data, size_t size,
					const char **err)
{
	elf_version(EV_CURRENT); /* idempotent */
	struct elf_image *img = index_image(name, -1, data, size, err);
	if (img)
		index_funcs(img);
	return img;
}

struct elf_image *elf_image_open(const char *path, const char **err)
{
	return elf_image_open_as(path, &(struct file_expect){.follow = true}, err);
}

struct elf_image *elf_image_open_as(const char *path, const struct file_expect *ex, const char **err)
{
	struct elf_image *img = open_plain(path, ex, err);
	if (!img)
		return NULL;
	img->debug = find_debug_file(img);
	index_funcs(img);
	return img;
}

void elf_image_close(struct elf_image *img)
{
	if (!img)
		return;
	if (img->cfi)
		dwarf_cfi_end((Dwarf_CFI *)img->cfi);
	elf_image_close(img->debug);
	elf_end(img->elf);
	if (img->fd >= 0) /* else the caller's buffer (elf_image_from_buffer) */
		close(img->fd);
	free(img->loads);
	free(img->funcs);
	free(img->path);
	free(img);
}

void elf_image_foreach_sym(const struct elf_image *img, elf_sym_cb cb, void *ctx)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			const char *name = elf_strptr(img->elf, sh.sh_link, s.st_name);
			if (!name)
				continue;
			if (!cb(ctx, name, s.st_value, s.st_size, GELF_ST_TYPE(s.st_info), s.st_shndx))
				return;
		}
	}
}

struct find_ctx {
	const char *name;
	uint64_t value, size;
	bool found;
};

static bool find_cb(void *vctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	struct find_ctx *c = vctx;
	(void)type;
	/* called for every symbol of the binary: the first byte settles most (startup time) */
	if (shndx == SHN_UNDEF || name[0] != c->name[0] || strcmp(name, c->name) != 0)
		return true;
	c->value = value;
	c->size = size;
	c->found = true;
	return false;
}

bool elf_image_find_sym(const struct elf_image *img, const char *name, uint64_t *value,
			uint64_t *size)
{
	struct find_ctx c = {.name = name};
	elf_image_foreach_sym(img, find_cb, &c);
	if (c.found) {
		if (value)
			*value = c.value;
		if (size)
			*size = c.size;
	}
	return c.found;
}

bool elf_image_read(const struct elf_image *img, uint64_t vaddr, void *buf, size_t len)
{
	/* every sum of file values is checked: a program header may hold any offset and sizes */
	for (size_t i = 0; i < img->nloads; i++) {
		const struct elf_load *l = &img->loads[i];
		if (vaddr < l->vaddr)
			continue;
		uint64_t rel = vaddr - l->vaddr;
		if (rel > l->memsz || len > l->memsz - rel)
			continue;
		size_t in_file = 0;
		if (rel < l->filesz)
			in_file = (size_t)(l->filesz - rel < len ? l->filesz - rel : len);
		if (in_file) {
			if (l->offset > img->size || rel > img->size - l->offset ||
			    in_file > img->size - l->offset - rel ||
			    elf_image_read_file(img, l->offset + rel, buf, in_file) != in_file)
				return false; /* outside the file, or the file shrank since it was opened */
		}
		if (len > in_file)
			memset((char *)buf + in_file, 0, len - in_file);
		return true;
	}
	return false;
}

size_t elf_image_read_file(const struct elf_image *img, uint64_t off, void *buf, size_t len)
{
	if (off >= img->size)
		return 0;
	size_t n = img->size - off < len ? (size_t)(img->size - off) : len, done = 0;
	if (img->fd < 0) { /* the caller's buffer */
		memcpy(buf, img->data + off, n);
		return n;
	}
	while (done < n) {
		ssize_t got = pread(img->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (got <= 0)
			break; /* the file shrank (or an I/O error): what was read */
		done += (size_t)got;
	}
	return done;
}

bool elf_image_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < img->nloads; i++) {
		const struct elf_load *l = &img->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

const struct elf_load *elf_image_load_at(const struct elf_image *img, uint64_t vaddr)
{
	for (size_t i = 0; i < img->nloads; i++) {
		const struct elf_load *l = &img->loads[i];
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->memsz)
			return l;
	}
	return NULL;
}

const struct elf_sym *elf_image_func_at(const struct elf_image *img, uint64_t vaddr)
{
	size_t lo = 0, hi = img->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct elf_sym *s = &img->funcs[lo - 1];
	uint64_t span = s->size;
	if (span == 0) {
		uint64_t next = lo < img->nfuncs ? img->funcs[lo].addr : UINT64_MAX;
		span = next - s->addr < SIZELESS_SYM_SPAN ? next - s->addr : SIZELESS_SYM_SPAN;
	}
	return vaddr - s->addr < span ? s : NULL;
}

const char *build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = 0;
	return buf;
}

const char *elf_image_build_id_hex(const struct elf_image *img, char *buf)
{
	return build_id_hex(img->build_id, img->build_id_len, buf);
}

/* The frame data dwarf_getcfi_elf (elfutils 0.188, dwarf_getcfi_elf.c) will read, checked
 * (eh_frame_check.h). It takes the first section named .eh_frame (none when it is NOBITS), with
 * the last .eh_frame_hdr met before it, whose table it searches when the header's .eh_frame
 * pointer is the section's address (getcfi_shdr); with no such section (or no section names),
 * the first PT_GNU_EH_FRAME: the header there, and the frame data at the file offset of its
 * .eh_frame pointer, to the end of the file (getcfi_gnu_eh_frame). Those bytes are read here
 * through the same libelf calls and buffers libdw's will return. False: no CFI for this image
 * (also where libdw would have none). */
static bool eh_frame_safe(const struct elf_image *img)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(img->elf, NULL);
	size_t shstrndx;
	if (!ident || elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return false;
	struct eh_frame_hdr hdr;
	if (shstrndx != 0) {
		Elf_Scn *scn = NULL, *hdr_scn = NULL;
		GElf_Addr hdr_vaddr = 0;
		while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(img->elf, shstrndx, sh.sh_name);
			if (!name)
				continue;
			if (strcmp(name, ".eh_frame_hdr") == 0) {
				hdr_scn = scn;
				hdr_vaddr = sh.sh_addr;
				continue;
			}
			if (strcmp(name, ".eh_frame") != 0)
				continue;
			Elf_Data *d = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
			if (!d || !d->d_buf)
				return false; /* libdw: no CFI */
			Elf_Data *hd = hdr_scn ? elf_rawdata(hdr_scn, NULL) : NULL;
			if (!hd || !hd->d_buf)
				return eh_frame_cfi_ok(ident, d, sh.sh_addr, NULL);
			if (!eh_frame_hdr_parse(ident, hd->d_buf, hd->d_size, hdr_vaddr, &hdr))
				return false;
			return eh_frame_cfi_ok(ident, d, sh.sh_addr,
					       hdr.eh_frame_ptr == sh.sh_addr ? &hdr : NULL);
		}
	}
	size_t n;
	if (elf_getphdrnum(img->elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(img->elf, (int)i, &ph))
			return false;
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		/* the whole file, read once: libdw's reads of it come from this copy */
		size_t filesize;
		const uint8_t *raw = (const uint8_t *)elf_rawfile(img->elf, &filesize);
		if (!raw || ph.p_offset > filesize || ph.p_filesz > filesize - ph.p_offset ||
		    !eh_frame_hdr_parse(ident, raw + ph.p_offset, ph.p_filesz, ph.p_vaddr, &hdr))
			return false;
		uint64_t off = hdr.eh_frame_ptr - ph.p_vaddr + ph.p_offset;
		if (off >= filesize)
			return false;
		Elf_Data d = {.d_buf = (void *)(raw + off), .d_size = filesize - off,
			      .d_type = ELF_T_BYTE, .d_version = EV_CURRENT};
		return eh_frame_cfi_ok(ident, &d, hdr.eh_frame_ptr, &hdr);
	}
	return true; /* libdw finds no CFI */
}

struct Dwarf_CFI_s *elf_image_cfi(struct elf_image *img)
{
	if (!img->cfi_loaded) {
		img->cfi_loaded = true;
		if (eh_frame_safe(img)) /* else no CFI: the unwinder falls back to frame pointers */
			img->cfi = (struct Dwarf_CFI_s *)dwarf_getcfi_elf(img->elf);
	}
	return img->cfi;
}

/* The header of the section named `name` (not NOBITS, inside the file); NULL when absent. */
static Elf_Scn *section_named(const struct elf_image *img, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(img->elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		const char *n = elf_strptr(img->elf, shstrndx, sh->sh_name);
		if (!n || strcmp(n, name) != 0)
			continue;
		if (sh->sh_offset > img->size || sh->sh_size > img->size - sh->sh_offset)
			return NULL;
		return scn;
	}
	return NULL;
}

bool elf_image_section_range(const struct elf_image *img, const char *name, uint64_t *offset,
			     size_t *size)
{
	GElf_Shdr sh;
	if (!section_named(img, name, &sh))
		return false;
	*offset = sh.sh_offset;
	*size = sh.sh_size;
	return true;
}

bool elf_image_section_vaddr(const struct elf_image *img, const char *name, uint64_t *vaddr)
{
	GElf_Shdr sh;
	if (!section_named(img, name, &sh))
		return false;
	*vaddr = sh.sh_addr;
	return true;
}

const uint8_t *elf_image_section(const struct elf_image *img, const char *name, size_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(img, name, &sh);
	if (!scn)
		return NULL;
	/* libelf's own copy (read with pread; kept until the image is closed) */
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size != sh.sh_size)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}
