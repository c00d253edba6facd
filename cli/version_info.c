/* version_info.c — the detection report. */
#include "../util/text_escape.h"
#include "version_info.h"

#include "../util/strbuf.h"
#include "../util/version.h"

void print_version_info(FILE *out, const struct v8_runtime *rt, const struct addrspace *as)
{
	struct strbuf b;
	sb_init(&b);
	v8_runtime_describe(rt, &b);
	const struct module *mod = &as->mods[rt->mod];
	char bid[160] = "";
	if (mod->img)
		elf_image_build_id_hex(mod->img, bid);
	fprintf_text(out, "v8walk %s (%s)\n", v8walk_release, v8walk_commit);
	fprintf_text(out, "target:          %s\n", b.s);
	fprintf_text(out, "V8 module:       %s%s\n", rt->module_path,
		mod->img && mod->img->etype == 3 ? " (shared library)" : "");
	fprintf_text(out, "build-id:        %s\n", bid[0] ? bid : "(none)");
	fprintf_text(out, "metadata:        %zu v8dbg_* symbols, %d nodedbg_* symbols%s\n", rt->md.n,
		rt->md.nodedbg_count,
		mod->img && mod->img->has_symtab ? "" : " (no .symtab: stripped)");
	if (rt->forced)
		fprintf_text(out, "fallbacks for:   V8 %d.%d.%d (forced with --force-v8-version)\n",
			rt->layout_version.major, rt->layout_version.minor, rt->layout_version.build);
	if (rt->have_blob)
		fprintf_text(out, "builtins blob:   0x%llx, %llu bytes (%s)\n",
			(unsigned long long)rt->blob_vaddr, (unsigned long long)rt->blob_size,
			rt->blob_how);
	else
		fprintf_text(out, "builtins blob:   not found (builtins will not be named)\n");
	size_t remaps = 0;
	for (size_t i = 0; i < as->maps.n; i++) {
		const struct mapping *m = &as->maps.v[i];
		if (as->map_mod[i] == (int)rt->mod && (m->prot & MAP_X) && rt->have_blob &&
		    m->start != m->pgoff + mod->bias && m->pgoff != 0)
			remaps++;
	}
	fprintf_text(out, "builtin remaps:  %zu (V8's copies of the builtins near JIT code)\n", remaps);
	size_t nmeta = 0, nfb = 0, nmiss = 0;
	for (int i = 0; i < L_COUNT; i++) {
		if (rt->L.src[i] == SRC_METADATA)
			nmeta++;
		else if (rt->L.src[i] == SRC_FALLBACK)
			nfb++;
		else
			nmiss++;
	}
	fprintf_text(out, "layout:          %zu items from metadata, %zu from fallbacks, %zu unknown\n", nmeta,
		nfb, nmiss);
	for (int i = 0; i < L_COUNT; i++)
		if (rt->L.src[i] == SRC_FALLBACK)
			fprintf_text(out, "  fallback  %-28s = %-6d %s\n", v8_item_name[i], rt->L.v[i],
				rt->L.how[i]);
	for (int i = 0; i < L_COUNT; i++)
		if (rt->L.src[i] == SRC_MISSING)
			fprintf_text(out, "  unknown   %-28s (%s)\n", v8_item_name[i], v8_item_desc[i]);
	fprintf_text(out, "frame types:     %zu (max %d)\n", rt->L.nframetypes, rt->L.max_frametype);
	sb_free(&b);
}
