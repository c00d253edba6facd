/* validate.c — re-reading the identity of the objects a deferred decode relied on. */
#include "validate.h"

#include <string.h>

#include "../v8/heap.h"

enum { OBJ_WORDS = 8, OBJ_BYTES = OBJ_WORDS * 8 };

static bool is_type(const struct v8_layout *L, int type, enum v8_item item)
{
	return type >= 0 && v8_has(L, item) && type == L->v[item];
}

/* The words of an object that say which object it is, as offsets (at most three). */
static int identity_offsets(const struct v8_layout *L, const struct v8_heap *copy, uint64_t tagged,
			    int32_t off[3])
{
	/* an object decoding named something through (a SharedFunctionInfo, BytecodeArray or Code)
	 * has a root map, whose type that decoding remembered: any other map is a slot that held
	 * something else, and asking the live process its type was a read for nothing (without
	 * remembered types, as in the unit tests, the type is read) */
	uint64_t map;
	int type = -1;
	if (!copy->types)
		type = v8_type(copy, tagged);
	else if (!v8_field(copy, tagged, L->v[L_HEAPOBJECT_MAP], &map) ||
		 !map_types_get(copy->types, map, &type))
		return 0;
	int n = 0;
	off[n++] = (int32_t)L->v[L_HEAPOBJECT_MAP];
	if (is_type(L, type, L_T_SFI)) {
		off[n++] = (int32_t)L->v[L_SFI_NAME];
		off[n++] = (int32_t)L->v[L_SFI_SCRIPT];
	} else if (is_type(L, type, L_T_BYTECODE_ARRAY)) {
		if (v8_has(L, L_BCA_SPT))
			off[n++] = (int32_t)L->v[L_BCA_SPT];
	} else if (!is_type(L, type, L_T_CODE)) {
		return 0; /* functions and receivers: prefetched_moved looks at those */
	}
	return n;
}

static bool listed(const uint64_t *only, size_t nonly, uint64_t obj)
{
	for (size_t i = 0; i < nonly; i++)
		if (only[i] == obj)
			return true;
	return false;
}

bool validate_prefetched(const struct v8_layout *L, struct map_types *types, struct memsrc *copy,
			 struct memsrc *live, const struct prefetched *p, const uint64_t *only,
			 size_t nonly, struct validation *v)
{
	struct v8_heap h = {.mem = copy, .L = L, .types = types};
	struct mem_range r[PREFETCH_MAX_OBJECTS];
	uint64_t now[PREFETCH_MAX_OBJECTS][OBJ_WORDS];
	int32_t offs[PREFETCH_MAX_OBJECTS][3];
	int noff[PREFETCH_MAX_OBJECTS];
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (only && !listed(only, nonly, p->obj[i]))
			continue;
		noff[n] = identity_offsets(L, &h, p->obj[i] + 1, offs[n]);
		if (noff[n] == 0)
			continue;
		r[n] = (struct mem_range){.addr = p->obj[i], .buf = now[n], .len = OBJ_BYTES};
		n++;
	}
	v->runs++;
	if (n == 0)
		return true;
	mem_readv(live, r, n);
	bool same = true;
	for (size_t i = 0; i < n; i++) {
		v->checked++;
		bool ok = r[i].got == OBJ_BYTES;
		for (int k = 0; ok && k < noff[i]; k++) {
			uint64_t was;
			int32_t o = offs[i][k];
			ok = o >= 0 && (size_t)o + 8 <= OBJ_BYTES && mem_read_u64(copy, r[i].addr + (uint64_t)o, &was) &&
			     memcmp(&was, (const uint8_t *)now[i] + o, 8) == 0;
		}
		if (!ok) {
			v->changed++;
			same = false;
		}
	}
	return same;
}
