/* metadata.c — reading `v8dbg_*` symbols and V8's Version statics from an ELF image. */
#include "metadata.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

static const char PREFIX[] = "v8dbg_";

struct load_ctx {
	const struct elf_image *img;
	struct v8_metadata *md;
	size_t cap;
	uint64_t ver_addr[4];
	bool ver_found[4];
};

static bool collect(void *vctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	struct load_ctx *c = vctx;
	static const char *const ver_syms[4] = {
	    "_ZN2v88internal7Version6major_E", "_ZN2v88internal7Version6minor_E",
	    "_ZN2v88internal7Version6build_E", "_ZN2v88internal7Version6patch_E"};
	if (shndx == SHN_UNDEF)
		return true;
	/* every symbol of the binary passes here: the common prefix first (startup time) */
	static const char ver_prefix[] = "_ZN2v88internal7Version";
	bool ver = strncmp(name, ver_prefix, sizeof(ver_prefix) - 1) == 0;
	for (int i = 0; ver && i < 4; i++) {
		if (!c->ver_found[i] && strcmp(name, ver_syms[i]) == 0) {
			c->ver_addr[i] = value;
			c->ver_found[i] = true;
		}
	}
	if (strncmp(name, "nodedbg_", 8) == 0)
		c->md->nodedbg_count++;
	if (strncmp(name, PREFIX, sizeof(PREFIX) - 1) != 0 || type != STT_OBJECT || size != 4)
		return true;
	int32_t v = 0;
	if (!elf_image_read(c->img, value, &v, sizeof(v)))
		return true;
	XGROW(c->md->v, c->cap, c->md->n + 1);
	c->md->v[c->md->n++] = (struct md_entry){.name = xstrdup(name + sizeof(PREFIX) - 1), .value = v};
	return true;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct md_entry *)a)->name, ((const struct md_entry *)b)->name);
}

static void sort_dedup(struct v8_metadata *md)
{
	if (md->n)
		qsort(md->v, md->n, sizeof(*md->v), cmp_entry);
	size_t w = 0;
	for (size_t i = 0; i < md->n; i++) {
		if (w && strcmp(md->v[w - 1].name, md->v[i].name) == 0) {
			free(md->v[i].name); /* same symbol in .symtab and .dynsym */
			continue;
		}
		md->v[w++] = md->v[i];
	}
	md->n = w;
}

/* "node-vX.Y.Z-headers" in buf[0..size): the version into out (cap bytes); false when absent. */
static bool scan_node_version(const uint8_t *buf, size_t size, char *out, size_t cap)
{
	static const char pat[] = "node-v", tail[] = "-headers";
	const size_t pl = sizeof(pat) - 1, tl = sizeof(tail) - 1;
	for (size_t i = 0; i + pl < size; i++) {
		const uint8_t *hit = memchr(buf + i, 'n', size - i);
		if (!hit)
			return false;
		i = (size_t)(hit - buf);
		if (size - i < pl || memcmp(hit, pat, pl) != 0)
			continue;
		size_t at = i + pl, n = 0;
		while (at + n < size && n < cap - 1 &&
		       ((buf[at + n] >= '0' && buf[at + n] <= '9') || buf[at + n] == '.'))
			n++;
		if (n >= 5 && at + n + tl <= size && memcmp(buf + at + n, tail, tl) == 0) {
			memcpy(out, buf + at, n);
			out[n] = 0;
			return true;
		}
	}
	return false;
}

/* The official builds embed "node-vX.Y.Z-headers" (process.release.headersUrl) in .rodata. It is
 * read from the file a chunk at a time (node's .rodata is ~47 MB: kept whole, it was most of
 * v8walk's memory for each process it samples); chunks overlap by more than the longest match. */
static void find_node_version(const struct elf_image *img, char *out, size_t cap)
{
	enum { CHUNK = 1 << 20, OVERLAP = 64 };
	out[0] = 0;
	uint64_t off;
	size_t size;
	if (!elf_image_section_range(img, ".rodata", &off, &size))
		return;
	uint8_t *buf = xmalloc(CHUNK);
	for (size_t done = 0; done < size;) {
		size_t want = size - done < CHUNK ? size - done : CHUNK;
		size_t got = elf_image_read_file(img, off + done, buf, want);
		if (!got || scan_node_version(buf, got, out, cap) || got < want)
			break;
		done += got > OVERLAP && done + got < size ? got - OVERLAP : got;
	}
	free(buf);
}

bool v8md_load(struct v8_metadata *md, const struct elf_image *img, const char **why)
{
	memset(md, 0, sizeof(*md));
	struct load_ctx c = {.img = img, .md = md};
	elf_image_foreach_sym(img, collect, &c);
	sort_dedup(md);
	if (c.ver_found[0] && c.ver_found[1]) {
		int32_t parts[4] = {0, 0, 0, 0};
		for (int i = 0; i < 4; i++)
			if (c.ver_found[i])
				elf_image_read(img, c.ver_addr[i], &parts[i], 4);
		md->version = (struct v8_version){parts[0], parts[1], parts[2], parts[3]};
		md->have_version = parts[0] > 0;
	}
	find_node_version(img, md->node_version, sizeof(md->node_version));
	if (md->n == 0) {
		*why = "no v8dbg_* postmortem metadata";
		return false;
	}
	return true;
}

void v8md_from_pairs(struct v8_metadata *md, const char *const *names, const int32_t *values,
		     size_t n)
{
	memset(md, 0, sizeof(*md));
	md->v = xcalloc(n ? n : 1, sizeof(*md->v));
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		if (strncmp(nm, PREFIX, sizeof(PREFIX) - 1) == 0)
			nm += sizeof(PREFIX) - 1;
		md->v[i] = (struct md_entry){.name = xstrdup(nm), .value = values[i]};
	}
	md->n = n;
	sort_dedup(md);
}

void v8md_free(struct v8_metadata *md)
{
	for (size_t i = 0; i < md->n; i++)
		free(md->v[i].name);
	free(md->v);
	memset(md, 0, sizeof(*md));
}

/* First entry whose name is >= key. */
static size_t lower_bound(const struct v8_metadata *md, const char *key)
{
	size_t lo = 0, hi = md->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(md->v[mid].name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

bool v8md_lookup(const struct v8_metadata *md, const char *spec, int32_t *value,
		 const char **matched)
{
	if (starts_with(spec, "class_")) {
		/* the untyped spelling, then any `spec__<Type>` */
		size_t i = lower_bound(md, spec);
		if (i < md->n && strcmp(md->v[i].name, spec) == 0) {
			*value = md->v[i].value;
			if (matched)
				*matched = md->v[i].name;
			return true;
		}
		char key[256];
		snprintf(key, sizeof(key), "%s__", spec);
		i = lower_bound(md, key);
		if (i < md->n && starts_with(md->v[i].name, key)) {
			/* a field name never contains "__", so the rest is the type */
			const char *rest = md->v[i].name + strlen(key);
			if (!strstr(rest, "__")) {
				*value = md->v[i].value;
				if (matched)
					*matched = md->v[i].name;
				return true;
			}
		}
		return false;
	}
	if (starts_with(spec, "type_")) {
		char suffix[160];
		snprintf(suffix, sizeof(suffix), "__%s", spec + 5);
		size_t sl = strlen(suffix);
		for (size_t i = lower_bound(md, "type_"); i < md->n && starts_with(md->v[i].name, "type_");
		     i++) {
			size_t l = strlen(md->v[i].name);
			if (l > sl && strcmp(md->v[i].name + l - sl, suffix) == 0) {
				*value = md->v[i].value;
				if (matched)
					*matched = md->v[i].name;
				return true;
			}
		}
		return false;
	}
	size_t i = lower_bound(md, spec);
	if (i < md->n && strcmp(md->v[i].name, spec) == 0) {
		*value = md->v[i].value;
		if (matched)
			*matched = md->v[i].name;
		return true;
	}
	return false;
}

void v8md_foreach_prefix(const struct v8_metadata *md, const char *prefix,
			 void (*cb)(void *ctx, const char *rest, int32_t value), void *ctx)
{
	size_t pl = strlen(prefix);
	for (size_t i = lower_bound(md, prefix); i < md->n && starts_with(md->v[i].name, prefix); i++)
		cb(ctx, md->v[i].name + pl, md->v[i].value);
}
