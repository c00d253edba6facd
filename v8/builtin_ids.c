/* builtin_ids.c — naming builtin ids from the binary's builtin_metadata table. */
#include "builtin_ids.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

enum {
	ENTRY_SIZE = 24,       /* BuiltinMetadata {const char *name; Kind kind; union data} */
	MAX_BUILTINS = 8192,   /* Node 26 has 2,415 */
	NAME_MAX_LEN = 96,
	RELA_SIZE = 24,        /* Elf64_Rela */
	/* the RELATIVE relocation of each machine (a file holds its own machine's only) */
	RELATIVE_X86_64 = 8,
	RELATIVE_AARCH64 = 1027,
	CHUNK = 1 << 20,
};

static const struct {
	const char *name;
	enum async_builtin kind;
} known[] = {
    {"AsyncFunctionAwaitResolveClosure", AB_AWAIT},
    {"AsyncFunctionAwaitRejectClosure", AB_AWAIT},
    {"AsyncGeneratorAwaitResolveClosure", AB_AWAIT},
    {"AsyncGeneratorAwaitRejectClosure", AB_AWAIT},
    {"AsyncGeneratorYieldWithAwaitResolveClosure", AB_AWAIT}, /* V8 >= 11 */
    {"AsyncGeneratorYieldResolveClosure", AB_AWAIT},          /* V8 <= 10 */
    {"PromiseAllResolveElementClosure", AB_ALL_RESOLVE},
    {"PromiseAllSettledResolveElementClosure", AB_ALLSETTLED_RESOLVE},
    {"PromiseAnyRejectElementClosure", AB_ANY_REJECT},
    {"PromiseCapabilityDefaultResolve", AB_DEFAULT_RESOLVE},
};

/* the name the table is found by in a stripped binary (present in every V8 the tool reads) */
static const char anchor_name[] = "AsyncFunctionAwaitResolveClosure";

void builtin_ids_from_names(struct builtin_ids *b, const char *const *names, size_t n)
{
	free(b->kind);
	b->kind = xcalloc(n ? n : 1, 1);
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (strcmp(names[i], known[k].name) == 0)
				b->kind[i] = (uint8_t)known[k].kind;
	}
}

void builtin_ids_free(struct builtin_ids *b)
{
	free(b->kind);
	b->kind = NULL;
	b->n = 0;
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void reloc_table_parse(struct reloc_table *r, const uint8_t *rela, size_t len)
{
	memset(r, 0, sizeof(*r));
	size_t cap = len / RELA_SIZE;
	uint64_t *pairs = xmalloc(sizeof(uint64_t) * 2 * (cap ? cap : 1));
	size_t n = 0;
	for (size_t i = 0; i < cap; i++) {
		uint64_t off, info, addend;
		memcpy(&off, rela + i * RELA_SIZE, 8);
		memcpy(&info, rela + i * RELA_SIZE + 8, 8);
		memcpy(&addend, rela + i * RELA_SIZE + 16, 8);
		uint32_t type = (uint32_t)(info & 0xffffffffu);
		if (type != RELATIVE_X86_64 && type != RELATIVE_AARCH64)
			continue;
		pairs[2 * n] = off;
		pairs[2 * n + 1] = addend;
		n++;
	}
	qsort(pairs, n, sizeof(uint64_t) * 2, cmp_u64_pair);
	r->offset = xmalloc(sizeof(uint64_t) * (n ? n : 1));
	r->addend = xmalloc(sizeof(uint64_t) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		r->offset[i] = pairs[2 * i];
		r->addend[i] = pairs[2 * i + 1];
	}
	r->n = n;
	free(pairs);
}

void reloc_table_free(struct reloc_table *r)
{
	free(r->offset);
	free(r->addend);
	memset(r, 0, sizeof(*r));
}

bool reloc_table_at(const struct reloc_table *r, uint64_t offset, uint64_t *addend)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->offset[mid] < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= r->n || r->offset[lo] != offset)
		return false;
	*addend = r->addend[lo];
	return true;
}

/* A builtin's name: a C identifier of sensible length. */
static bool is_name(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return n > 0 && n < NAME_MAX_LEN;
}

static bool entry_names(const struct reloc_table *r, uint64_t entry, builtin_name_at_fn name_at, void *ctx)
{
	uint64_t target;
	char buf[NAME_MAX_LEN];
	return reloc_table_at(r, entry, &target) && name_at(ctx, target, buf, sizeof(buf)) && is_name(buf);
}

size_t builtin_table_extent(const struct reloc_table *r, uint64_t entry, builtin_name_at_fn name_at,
			    void *ctx, size_t max, uint64_t *start)
{
	if (!entry_names(r, entry, name_at, ctx))
		return 0;
	uint64_t s = entry;
	size_t back = 0;
	while (back < max && s >= ENTRY_SIZE && entry_names(r, s - ENTRY_SIZE, name_at, ctx)) {
		s -= ENTRY_SIZE;
		back++;
	}
	size_t n = 0;
	while (n < max && entry_names(r, s + (uint64_t)n * ENTRY_SIZE, name_at, ctx))
		n++;
	*start = s;
	return n;
}

/* ---- over an ELF file ---- */

struct elf_names {
	const struct elf_image *img;
	struct reloc_table relocs; /* empty for a binary whose table holds plain addresses */
};

/* A NUL-terminated string at vaddr in the file (at most cap - 1 characters). */
static bool elf_name_at(void *vctx, uint64_t vaddr, char *buf, size_t cap)
{
	struct elf_names *c = vctx;
	size_t got = 0;
	while (got + 1 < cap) {
		size_t want = cap - 1 - got < 16 ? cap - 1 - got : 16;
		/* a short read near the end of a segment: byte by byte */
		if (!elf_image_read(c->img, vaddr + got, buf + got, want)) {
			if (!elf_image_read(c->img, vaddr + got, buf + got, 1))
				return false;
			want = 1;
		}
		for (size_t k = 0; k < want; k++)
			if (buf[got + k] == '\0')
				return true;
		got += want;
	}
	return false;
}

/* The pointer word at vaddr: what its relocation puts there, else the file's bytes. */
static bool elf_ptr_at(const struct elf_names *c, uint64_t vaddr, uint64_t *v)
{
	if (reloc_table_at(&c->relocs, vaddr, v))
		return true;
	return elf_image_read(c->img, vaddr, v, sizeof(*v));
}

bool builtin_ids_table_symbol(const char *name)
{
	/* _ZN2v88internal12_GLOBAL__N_1L16builtin_metadataE (V8 <= 13), …_116builtin_metadataE (14) */
	return strncmp(name, "_ZN2v88internal", 15) == 0 && strstr(name, "16builtin_metadataE") != NULL;
}

static bool load_relocs(struct elf_names *c)
{
	uint64_t off;
	size_t len;
	if (!elf_image_section_range(c->img, ".rela.dyn", &off, &len) || len > (256u << 20))
		return false;
	uint8_t *buf = xmalloc(len ? len : 1);
	bool ok = elf_image_read_file(c->img, off, buf, len) == len;
	if (ok)
		reloc_table_parse(&c->relocs, buf, len);
	free(buf);
	return ok && c->relocs.n;
}

/* Addresses in .rodata where the anchor name starts (as a whole string), up to max. */
static size_t anchor_addresses(const struct elf_image *img, uint64_t *out, size_t max)
{
	uint64_t off, vaddr;
	size_t len, n = 0;
	if (!elf_image_section_range(img, ".rodata", &off, &len) || !elf_image_section_vaddr(img, ".rodata", &vaddr))
		return 0;
	const size_t alen = sizeof(anchor_name); /* with its NUL */
	uint8_t *buf = xmalloc(CHUNK + alen + 1);
	for (size_t at = 0; at < len && n < max; at += CHUNK) {
		size_t want = len - at < CHUNK + alen + 1 ? len - at : CHUNK + alen + 1;
		size_t got = elf_image_read_file(img, off + at, buf, want);
		for (size_t i = 0; i + alen <= got && i < CHUNK && n < max; i++) {
			if (memcmp(buf + i, anchor_name, alen) != 0)
				continue;
			/* the whole string, not the tail of a longer one */
			if (i == 0 ? at == 0 : buf[i - 1] == '\0')
				out[n++] = vaddr + at + i;
		}
	}
	free(buf);
	return n;
}

/* The table in a stripped binary: the relocation that points at the anchor name is one entry. */
static size_t locate_by_relocs(struct elf_names *c, uint64_t *start)
{
	uint64_t anchors[8];
	size_t na = anchor_addresses(c->img, anchors, 8);
	for (size_t a = 0; a < na; a++)
		for (size_t i = 0; i < c->relocs.n; i++) {
			if (c->relocs.addend[i] != anchors[a])
				continue;
			size_t n = builtin_table_extent(&c->relocs, c->relocs.offset[i], elf_name_at, c,
							MAX_BUILTINS, start);
			if (n > 1)
				return n;
		}
	return 0;
}

bool builtin_ids_load(struct builtin_ids *b, const struct elf_image *img, uint64_t table, uint64_t size)
{
	memset(b, 0, sizeof(*b));
	struct elf_names c = {.img = img};
	uint64_t start = 0;
	size_t n = 0;
	/* a shared library's table is filled in by relocations, symbol or not */
	if (img->etype == ET_DYN)
		load_relocs(&c);
	if (size) {
		start = table;
		n = size / ENTRY_SIZE;
		b->how = "builtin_metadata (.symtab)";
	} else if (c.relocs.n && (n = locate_by_relocs(&c, &start)) > 0) {
		b->how = "builtin_metadata (found through its relocations)";
	} else {
		b->how = "no builtin_metadata table (no symbol, no relocations naming builtins)";
	}
	if (n > MAX_BUILTINS)
		n = MAX_BUILTINS;
	char **names = xcalloc(n ? n : 1, sizeof(*names));
	size_t named = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t p;
		char buf[NAME_MAX_LEN];
		if (elf_ptr_at(&c, start + i * ENTRY_SIZE, &p) && elf_name_at(&c, p, buf, sizeof(buf)) && is_name(buf)) {
			names[i] = xstrdup(buf);
			named++;
		}
	}
	builtin_ids_from_names(b, (const char *const *)names, n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	reloc_table_free(&c.relocs);
	if (n && !named)
		b->how = "builtin_metadata names unreadable";
	return named > 0;
}
