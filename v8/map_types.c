/* map_types.c — the root-map type cache. */
#include "map_types.h"

#include <string.h>

enum { MAX_MAPS = 4096 };

static const enum v8_item root_types[] = {
    L_T_SFI,          L_T_SCRIPT,           L_T_SCOPE_INFO,         L_T_FIXED_ARRAY,
    L_T_TRUSTED_FIXED_ARRAY, L_T_BYTE_ARRAY, L_T_TRUSTED_BYTE_ARRAY, L_T_ODDBALL,
    L_T_MAP,          L_T_BYTECODE_ARRAY,   L_T_CODE,               L_T_INSTRUCTION_STREAM,
    L_T_UNCOMPILED_WITHOUT, L_T_UNCOMPILED_WITH, L_T_UNCOMPILED_WITHOUT_JOB,
    L_T_UNCOMPILED_WITH_JOB, L_T_PROMISE_REACTION, L_T_PROMISE_CAPABILITY,
    L_T_ASYNC_GENERATOR_REQUEST,
};

void map_types_init(struct map_types *m)
{
	memset(m, 0, sizeof(*m));
	u64map_init(&m->idx, MAX_MAPS);
}

void map_types_free(struct map_types *m)
{
	u64map_free(&m->idx);
	memset(m, 0, sizeof(*m));
}

bool map_types_get(struct map_types *m, uint64_t map, int *type)
{
	uint64_t v;
	if (!u64map_get(&m->idx, map, &v) || v == 0)
		return false;
	m->hits++;
	*type = (int)(v - 1);
	return true;
}

static bool is_root_type(const struct v8_layout *L, int type)
{
	if (v8_has(L, L_FIRST_NONSTRING_TYPE) && type >= 0 && type < L->v[L_FIRST_NONSTRING_TYPE])
		return true; /* every string map is a root map */
	for (size_t i = 0; i < sizeof(root_types) / sizeof(root_types[0]); i++)
		if (v8_has(L, root_types[i]) && L->v[root_types[i]] == type)
			return true;
	return false;
}

void map_types_note(struct map_types *m, const struct v8_layout *L, uint64_t map, int type)
{
	if (type >= 0 && is_root_type(L, type))
		u64map_put(&m->idx, map, (uint64_t)type + 1);
}
