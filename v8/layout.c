/* layout.c — resolving the layout table: metadata first, then version-keyed fallbacks. */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

const char *const v8_item_desc[L_COUNT] = {
#define X(name, desc) [L_##name] = desc,
    V8_LAYOUT_ITEMS(X)
#undef X
};

const char *const v8_item_name[L_COUNT] = {
#define X(name, desc) [L_##name] = #name,
    V8_LAYOUT_ITEMS(X)
#undef X
};

struct ft_ctx {
	struct v8_layout *L;
	size_t cap;
};

static void add_frametype(void *vctx, const char *rest, int32_t value)
{
	struct ft_ctx *c = vctx;
	XGROW(c->L->frametypes, c->cap, c->L->nframetypes + 1);
	c->L->frametypes[c->L->nframetypes++] = (struct v8_frametype_name){value, xstrdup(rest)};
	if (value > c->L->max_frametype)
		c->L->max_frametype = value;
}

void v8_layout_resolve(struct v8_layout *L, const struct v8_metadata *md,
		       const struct v8_version *version)
{
	memset(L, 0, sizeof(*L));
	L->version = *version;
	for (int i = 0; i < L_COUNT; i++) {
		for (int k = 0; k < 5 && v8_layout_specs[i].md[k]; k++) {
			int32_t v;
			const char *matched;
			if (v8md_lookup(md, v8_layout_specs[i].md[k], &v, &matched)) {
				L->v[i] = v;
				L->src[i] = SRC_METADATA;
				L->how[i] = matched;
				break;
			}
		}
	}
	uint64_t key = v8_version_key(version);
	for (size_t r = 0; r < v8_nfallbacks; r++) {
		const struct v8_fallback *f = &v8_fallbacks[r];
		if (L->src[f->item] != SRC_MISSING)
			continue;
		if (key < f->from || (f->until && key >= f->until))
			continue;
		if (f->base >= 0 && L->src[f->base] == SRC_MISSING)
			continue;
		L->v[f->item] = (f->base >= 0 ? L->v[f->base] : 0) + f->delta;
		L->src[f->item] = SRC_FALLBACK;
		L->how[f->item] = f->note;
	}
	struct ft_ctx c = {.L = L};
	v8md_foreach_prefix(md, "frametype_", add_frametype, &c);
}

void v8_layout_free(struct v8_layout *L)
{
	for (size_t i = 0; i < L->nframetypes; i++)
		free(L->frametypes[i].name);
	free(L->frametypes);
	L->frametypes = NULL;
	L->nframetypes = 0;
}

const char *v8_frametype_name(const struct v8_layout *L, int32_t type)
{
	for (size_t i = 0; i < L->nframetypes; i++)
		if (L->frametypes[i].value == type)
			return L->frametypes[i].name;
	return NULL;
}

size_t v8_layout_missing_required(const struct v8_layout *L, enum v8_item *out, size_t cap)
{
	static const enum v8_item required[] = {
	    L_SMI_SHIFT_SIZE, L_TAGGED_SIZE,    L_HEAP_OBJECT_TAG, L_FP_CONTEXT,   L_FP_FUNCTION,
	    L_MAP_INSTANCE_TYPE, L_JSFUNC_SHARED, L_SFI_NAME,     L_SFI_SCRIPT,   L_SCRIPT_NAME,
	    L_STRING_LENGTH, L_T_JSFUNC_FIRST,  L_T_SFI,          L_T_SCRIPT,     L_FIRST_NONSTRING_TYPE,
	    L_STR_REP_MASK,  L_FT_ENTRY,
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!v8_has(L, required[i]) && n < cap)
			out[n++] = required[i];
	return n;
}
