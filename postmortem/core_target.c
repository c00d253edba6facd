/* core_target.c — opening a core for walking, with the binary and damage checks. */
#include "core_target.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "core_buildid.h"
#include "core_space.h"

void core_target_warn(struct core_target *t, const char *fmt, ...)
{
	struct strbuf b;
	sb_init(&b);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	t->warnings = xrealloc(t->warnings, (t->nwarnings + 1) * sizeof(*t->warnings));
	t->warnings[t->nwarnings++] = sb_take(&b);
	sb_free(&b);
}

/* The executable: the file mapped at the entry point (or the program headers), else the first
 * mapped file. */
static const char *core_exe_path(const struct core_file *cf)
{
	static const uint64_t keys[] = {AT_ENTRY, AT_PHDR};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t addr;
		const struct mapping *f;
		if (core_auxv(cf, keys[i], &addr) && (f = maps_find(&cf->files, addr)) != NULL)
			return f->path;
	}
	return cf->files.n ? cf->files.v[0].path : NULL;
}

static struct module *module_named(struct addrspace *as, const char *path)
{
	for (size_t k = 0; k < as->nmods; k++)
		if (strcmp(as->mods[k].path, path) == 0)
			return &as->mods[k];
	return NULL;
}

/* The build-id the crashed process saw for mod (from the core), or 0. */
static size_t build_id_in_core(const struct core_target *t, const struct module *mod,
			       uint8_t id[BUILD_ID_MAX])
{
	size_t idx = 0;
	const struct mapping *m;
	while ((m = addrspace_next_mapping(&t->as, mod, &idx)) != NULL)
		if (m->pgoff == 0)
			return core_build_id(&t->cf, m->start, id);
	return 0;
}

static bool same_build_id(const struct elf_image *img, const uint8_t *id, size_t n)
{
	return img->build_id_len == n && memcmp(img->build_id, id, n) == 0;
}

static bool check_exe(struct core_target *t, const struct core_target_opts *o, struct strbuf *msg)
{
	struct module *mod = module_named(&t->as, t->exe_path);
	struct elf_image *img = mod ? addrspace_image(&t->as, mod) : NULL;
	if (!img) {
		const char *why = mod && mod->open_err ? mod->open_err : "not mapped";
		if (o->exe)
			sb_printf(msg, "cannot use --exe %s: %s", o->exe, why);
		else
			sb_printf(msg, "the core's executable %s cannot be read here (%s): give the binary "
				       "that crashed with --exe PATH", t->exe_path, why);
		return false;
	}
	uint8_t id[BUILD_ID_MAX];
	size_t n = build_id_in_core(t, mod, id);
	char want[2 * BUILD_ID_MAX + 1], have[2 * BUILD_ID_MAX + 1];
	if (n == 0) {
		core_target_warn(t, "cannot check %s against the core: the core does not hold its "
				    "build-id (its first page was not dumped)", img->path);
	} else if (img->build_id_len == 0) {
		core_target_warn(t, "cannot check %s against the core: the file has no build-id",
				 img->path);
	} else if (!same_build_id(img, id, n)) {
		sb_printf(msg, "%s (build-id %s) is not the binary that wrote this core (build-id %s, "
			       "%s): give the one that crashed with --exe PATH",
			  img->path, elf_image_build_id_hex(img, have), build_id_hex(id, n, want),
			  t->exe_path);
		return false;
	}
	return true;
}

/* Libraries whose file differs from what the process had mapped name their frames wrongly; when
 * the library is the one carrying V8 (libnode.so), JS frames cannot be decoded at all: refused. */
static bool check_libraries(struct core_target *t, const struct module *exe, struct strbuf *msg)
{
	for (size_t k = 0; k < t->as.nmods; k++) {
		struct module *mod = &t->as.mods[k];
		uint8_t id[BUILD_ID_MAX];
		size_t n;
		if (mod == exe || (n = build_id_in_core(t, mod, id)) == 0)
			continue;
		struct elf_image *img = addrspace_image(&t->as, mod);
		char want[2 * BUILD_ID_MAX + 1], have[2 * BUILD_ID_MAX + 1];
		if (!img)
			core_target_warn(t, "%s cannot be read here (%s): its frames stay unnamed",
					 mod->path, mod->open_err ? mod->open_err : "unknown error");
		else if (!same_build_id(img, id, n) && t->have_rt && k == t->rt.mod) {
			sb_printf(msg, "%s (build-id %s) is not the library that wrote this core (build-id "
				       "%s): V8's objects cannot be read with another build of it",
				  mod->path, elf_image_build_id_hex(img, have), build_id_hex(id, n, want));
			return false;
		} else if (!same_build_id(img, id, n)) {
			core_target_warn(t, "%s differs from the file the process had mapped (build-id %s "
					    "here, %s in the core): its frames may be misnamed",
					 mod->path, elf_image_build_id_hex(img, have),
					 build_id_hex(id, n, want));
		}
	}
	return true;
}

static void open_v8(struct core_target *t, const struct core_target_opts *o)
{
	struct strbuf why;
	sb_init(&why);
	enum v8_open_status st = v8_runtime_open(&t->rt, &t->as, o->force, &why);
	if (st == V8_OK) {
		t->have_rt = true;
	} else {
		if (st == V8_NOT_NODE)
			core_target_warn(t, "the core is of %s, not of a Node.js process (no V8 in any "
					    "mapped file): only native frames are shown", t->cf.fname);
		else
			core_target_warn(t, "%s: only native frames are shown", why.s);
		v8_runtime_free(&t->rt);
	}
	sb_free(&why);
}

bool core_target_open(struct core_target *t, const struct core_target_opts *o, struct strbuf *msg)
{
	memset(t, 0, sizeof(*t));
	if (!core_file_open(&t->cf, o->core_path, msg))
		return false;
	const char *exe = core_exe_path(&t->cf);
	if (!t->cf.have_ntfile || !exe) {
		sb_printf(msg, "%s lists no mapped files (no NT_FILE note): v8walk needs them to find "
			       "the executable and libraries", o->core_path);
		core_file_close(&t->cf);
		return false;
	}
	t->exe_path = xstrdup(exe);
	core_space_build(&t->as, &t->cf, t->exe_path, o->exe);
	memsrc_core_init(&t->mem, &t->cf, &t->as);
	if (!check_exe(t, o, msg)) {
		core_target_close(t);
		return false;
	}
	if (t->cf.truncated)
		core_target_warn(t, "the core is truncated: %zu of %llu bytes are present (a core size "
				    "limit?); memory past that point is lost", t->cf.size,
				 (unsigned long long)t->cf.expected_size);
	open_v8(t, o);
	if (!check_libraries(t, module_named(&t->as, t->exe_path), msg)) {
		core_target_close(t);
		return false;
	}
	return true;
}

void core_target_close(struct core_target *t)
{
	if (t->have_rt)
		v8_runtime_free(&t->rt);
	addrspace_free(&t->as);
	core_file_close(&t->cf);
	for (size_t i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	free(t->exe_path);
	memset(t, 0, sizeof(*t));
}
