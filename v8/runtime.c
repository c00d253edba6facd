/* runtime.c — locating and validating a target's V8, and classifying code addresses. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/u64map.h"
#include "../util/xalloc.h"

bool v8_image_has_v8(const struct elf_image *img)
{
	return elf_image_find_sym(img, "v8dbg_SmiShiftSize", NULL, NULL) ||
	       elf_image_find_sym(img, "_ZN2v88internal7Version6major_E", NULL, NULL);
}

static bool name_suggests_node(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strstr(b, "node") != NULL;
}

/* The embedded blob: Node 16/18 export a pointer variable, Node 20+ the blob itself. */
static void find_blob(struct v8_runtime *rt, const struct elf_image *img)
{
	uint64_t addr = 0, size_addr = 0;
	if (!elf_image_find_sym(img, "v8_Default_embedded_blob_code_", &addr, NULL) ||
	    !elf_image_find_sym(img, "v8_Default_embedded_blob_code_size_", &size_addr, NULL))
		return;
	uint32_t size = 0;
	if (!elf_image_read(img, size_addr, &size, sizeof(size)) || size == 0)
		return;
	const struct elf_load *l = elf_image_load_at(img, addr);
	/* outside code it is the pointer (Node 16/18 give that symbol size 0, type NOTYPE) */
	if (l && !(l->flags & 1 /* PF_X */)) {
		uint64_t ptr = 0;
		if (!elf_image_read(img, addr, &ptr, sizeof(ptr)) || ptr == 0)
			return;
		addr = ptr;
		rt->blob_how = "v8_Default_embedded_blob_code_ (pointer)";
	} else {
		rt->blob_how = "v8_Default_embedded_blob_code_";
	}
	rt->blob_vaddr = addr;
	rt->blob_size = size;
	rt->have_blob = true;
}

static enum v8_open_status check_tagging(struct v8_runtime *rt, struct strbuf *msg)
{
	const struct v8_layout *L = &rt->L;
	if (v8_has(L, L_SMI_SHIFT_SIZE) && v8_has(L, L_TAGGED_SIZE) &&
	    (L->v[L_SMI_SHIFT_SIZE] != 31 || L->v[L_TAGGED_SIZE] != 8 ||
	     (v8_has(L, L_HEAP_OBJECT_TAG) && L->v[L_HEAP_OBJECT_TAG] != 1))) {
		sb_printf(msg,
			  "this V8 uses pointer compression (SmiShiftSize %d, TaggedSize %d), which "
			  "v8walk cannot read yet",
			  L->v[L_SMI_SHIFT_SIZE], L->v[L_TAGGED_SIZE]);
		return V8_INCOMPATIBLE;
	}
	return V8_OK;
}

static void name_versions(const struct v8_runtime *rt, struct strbuf *out)
{
	v8_runtime_describe(rt, out);
}

static enum v8_open_status load_module(struct v8_runtime *rt, struct addrspace *as, size_t k,
				       const struct v8_version *force, struct strbuf *msg)
{
	struct elf_image *img = addrspace_image(as, &as->mods[k]);
	const char *why = NULL;
	rt->mod = k;
	rt->module_path = xstrdup(as->mods[k].path);
	if (!v8md_load(&rt->md, img, &why)) {
		rt->version = rt->md.version;
		sb_printf(msg, "%s ", as->mods[k].path);
		if (rt->md.node_version[0])
			sb_printf(msg, "(Node %s) ", rt->md.node_version);
		sb_add(msg, "has V8 ");
		if (rt->md.have_version)
			sb_printf(msg, "%d.%d.%d.%d ", rt->version.major, rt->version.minor,
				  rt->version.build, rt->version.patch);
		sb_printf(msg, "but %s%s", why,
			  img->has_symtab ? "" : " (the binary is stripped: use an official build or "
						 "one built with --with-... postmortem support)");
		return V8_NO_METADATA;
	}
	rt->version = rt->md.version;
	rt->layout_version = force ? *force : rt->version;
	rt->forced = force != NULL;
	rt->node_line = node_line_for_v8(&rt->version);
	if (rt->md.node_version[0])
		rt->node_line = atoi(rt->md.node_version);
	v8_layout_resolve(&rt->L, &rt->md, &rt->layout_version);
	enum v8_open_status st = check_tagging(rt, msg);
	if (st != V8_OK)
		return st;
	if (!rt->md.have_version && !force) {
		sb_add(msg, "cannot tell the V8 version of ");
		sb_add(msg, as->mods[k].path);
		sb_add(msg, " (no v8::internal::Version symbols); use --force-v8-version X.Y");
		return V8_UNSUPPORTED;
	}
	if (rt->layout_version.major < 9) {
		name_versions(rt, msg);
		sb_add(msg, " is older than the oldest supported line (Node 16, V8 9.4)");
		return V8_UNSUPPORTED;
	}
	enum v8_item missing[32];
	size_t nm = v8_layout_missing_required(&rt->L, missing, 32);
	if (nm) {
		name_versions(rt, msg);
		sb_add(msg, ": metadata lacks");
		for (size_t i = 0; i < nm; i++)
			sb_printf(msg, "%s %s", i ? "," : "", v8_item_desc[missing[i]]);
		sb_add(msg, " and no fallback covers this V8 version");
		return V8_UNSUPPORTED;
	}
	find_blob(rt, img);
	return V8_OK;
}

enum v8_open_status v8_runtime_open(struct v8_runtime *rt, struct addrspace *as,
				    const struct v8_version *force, struct strbuf *msg)
{
	memset(rt, 0, sizeof(*rt));
	/* candidates: modules with executable mappings, node-named ones first */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < as->nmods; k++) {
			struct module *mod = &as->mods[k];
			if (name_suggests_node(mod->path) != (pass == 0))
				continue;
			bool exec = false;
			size_t idx = 0;
			const struct mapping *m;
			while ((m = addrspace_next_mapping(as, mod, &idx)) != NULL)
				exec |= (m->prot & MAP_X) != 0;
			if (!exec)
				continue;
			struct elf_image *img = addrspace_image(as, mod);
			if (!img || !v8_image_has_v8(img))
				continue;
			return load_module(rt, as, k, force, msg);
		}
	}
	sb_add(msg, "no V8 found in the process (no module carries v8dbg_* or V8 version symbols)");
	return V8_NOT_NODE;
}

void v8_runtime_free(struct v8_runtime *rt)
{
	v8md_free(&rt->md);
	v8_layout_free(&rt->L);
	free(rt->module_path);
	memset(rt, 0, sizeof(*rt));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

enum builtin_role v8_builtin_role(const char *name)
{
	if (strncmp(name, "Builtins_Interpreter", 20) == 0 || ends_with(name, "Handler"))
		return BR_INTERPRETER;
	if (ends_with(name, "_Baseline") || strncmp(name, "Builtins_Baseline", 17) == 0)
		return BR_BASELINE_HELPER;
	if (strcmp(name, "Builtins_PromiseFulfillReactionJob") == 0 ||
	    strcmp(name, "Builtins_PromiseRejectReactionJob") == 0)
		return BR_PROMISE_JOB;
	return BR_OTHER;
}

void v8_classify_pc(const struct v8_runtime *rt, struct addrspace *as, uint64_t pc,
		    struct pc_info *out)
{
	memset(out, 0, sizeof(*out));
	struct addr_info ai;
	if (!addrspace_lookup(as, pc, &ai)) {
		out->cls = PC_UNMAPPED;
		return;
	}
	if (!ai.mod) {
		/* anonymous executable memory is V8's code; the kernel's own mappings ([vdso],
		 * [vsyscall]: clock_gettime, gettimeofday) are not */
		out->cls = (ai.map->prot & MAP_X) && !mapping_is_kernel_named(ai.map) ? PC_JIT : PC_UNMAPPED;
		return;
	}
	out->mod = ai.mod;
	out->vaddr = ai.vaddr;
	out->cls = PC_NATIVE;
	if (rt && rt->have_blob && ai.vaddr_ok && (size_t)(ai.mod - as->mods) == rt->mod &&
	    ai.vaddr >= rt->blob_vaddr && ai.vaddr < rt->blob_vaddr + rt->blob_size) {
		out->cls = PC_BUILTIN;
		const struct elf_sym *s = elf_image_func_at(ai.mod->img, ai.vaddr);
		if (s) {
			out->builtin = s->name;
			out->role = v8_builtin_role(s->name);
			out->bytecode_handler = ends_with(s->name, "Handler");
		}
	}
}

void pc_class_cache_init(struct pc_class_cache *c)
{
	c->slots = xcalloc(PC_CLASS_SLOTS, sizeof(*c->slots));
}

void pc_class_cache_free(struct pc_class_cache *c)
{
	free(c->slots);
	c->slots = NULL;
}

void v8_classify_pc_cached(const struct v8_runtime *rt, struct addrspace *as, struct pc_class_cache *c,
			   uint64_t pc, struct pc_info *out)
{
	if (!c->slots) {
		v8_classify_pc(rt, as, pc, out);
		return;
	}
	struct pc_class_entry *e = &c->slots[(u64_hash(pc) >> 7) % PC_CLASS_SLOTS];
	if (e->gen == as->generation + 1 && e->pc == pc) {
		*out = e->pi;
		return;
	}
	v8_classify_pc(rt, as, pc, out);
	*e = (struct pc_class_entry){.pc = pc, .gen = as->generation + 1, .pi = *out};
}

void v8_runtime_describe(const struct v8_runtime *rt, struct strbuf *out)
{
	if (rt->md.node_version[0])
		sb_printf(out, "Node %s", rt->md.node_version);
	else if (rt->node_line)
		sb_printf(out, "Node %d", rt->node_line);
	else
		sb_add(out, "node");
	sb_printf(out, " (V8 %d.%d.%d.%d)", rt->version.major, rt->version.minor, rt->version.build,
		  rt->version.patch);
}
