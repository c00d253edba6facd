/* heap.c — defensive object reads and type checks. */
#include "heap.h"

bool v8_read_obj(const struct v8_heap *h, uint64_t obj, int32_t off, void *buf, size_t n)
{
	if (!v8_is_heap_object(obj))
		return false;
	return mem_read(h->mem, obj - 1 + (int64_t)off, buf, n);
}

bool v8_field(const struct v8_heap *h, uint64_t obj, int32_t off, uint64_t *val)
{
	return v8_read_obj(h, obj, off, val, sizeof(*val));
}

bool v8_field_u32(const struct v8_heap *h, uint64_t obj, int32_t off, uint32_t *val)
{
	return v8_read_obj(h, obj, off, val, sizeof(*val));
}

bool v8_field_i32(const struct v8_heap *h, uint64_t obj, int32_t off, int32_t *val)
{
	return v8_read_obj(h, obj, off, val, sizeof(*val));
}

bool v8_field_u16(const struct v8_heap *h, uint64_t obj, int32_t off, uint16_t *val)
{
	return v8_read_obj(h, obj, off, val, sizeof(*val));
}

int v8_type(const struct v8_heap *h, uint64_t obj)
{
	uint64_t map;
	uint16_t type;
	if (!v8_field(h, obj, h->L->v[L_HEAPOBJECT_MAP], &map) || !v8_is_heap_object(map))
		return -1; /* a forwarding address during GC evacuation is not a tagged pointer */
	int known;
	if (h->types && map_types_get(h->types, map, &known))
		return known;
	if (!v8_field_u16(h, map, h->L->v[L_MAP_INSTANCE_TYPE], &type))
		return -1;
	if (h->types)
		map_types_note(h->types, h->L, map, type);
	return type;
}

bool v8_is(const struct v8_heap *h, uint64_t obj, enum v8_item type_item)
{
	if (!v8_has(h->L, type_item))
		return false;
	int t = v8_type(h, obj);
	return t >= 0 && t == h->L->v[type_item];
}

bool v8_is_string(const struct v8_heap *h, uint64_t obj)
{
	int t = v8_type(h, obj);
	return t >= 0 && t < h->L->v[L_FIRST_NONSTRING_TYPE];
}

bool v8_forwarded(const struct v8_heap *h, uint64_t obj, uint64_t *to)
{
	uint64_t w;
	/* V8 stores a forwarding address untagged (MapWord::FromForwardingAddress): even, aligned */
	if (!v8_field(h, obj, h->L->v[L_HEAPOBJECT_MAP], &w) || v8_is_heap_object(w) || !w || (w & 7))
		return false;
	*to = w + 1;
	return true;
}

bool v8_is_jsfunction(const struct v8_heap *h, uint64_t obj)
{
	int t = v8_type(h, obj);
	return t >= h->L->v[L_T_JSFUNC_FIRST] && t <= h->L->v[L_T_JSFUNC_LAST];
}

static bool type_in(const struct v8_heap *h, int t, const enum v8_item *items, int n)
{
	for (int i = 0; i < n; i++)
		if (v8_has(h->L, items[i]) && h->L->v[items[i]] == t)
			return true;
	return false;
}

bool v8_is_fixed_array_like(const struct v8_heap *h, uint64_t obj)
{
	static const enum v8_item items[] = {L_T_FIXED_ARRAY, L_T_TRUSTED_FIXED_ARRAY,
					     L_T_PROTECTED_FIXED_ARRAY, L_T_WEAK_FIXED_ARRAY,
					     L_T_TRUSTED_WEAK_FIXED_ARRAY, L_T_PROTECTED_WEAK_FIXED_ARRAY};
	int t = v8_type(h, obj);
	return t >= 0 && type_in(h, t, items, sizeof(items) / sizeof(items[0]));
}

bool v8_is_byte_array_like(const struct v8_heap *h, uint64_t obj)
{
	static const enum v8_item items[] = {L_T_BYTE_ARRAY, L_T_TRUSTED_BYTE_ARRAY};
	int t = v8_type(h, obj);
	return t >= 0 && type_in(h, t, items, 2);
}

int64_t v8_array_length(const struct v8_heap *h, uint64_t arr)
{
	uint64_t len;
	if (!v8_field(h, arr, h->L->v[L_FIXED_ARRAY_LENGTH], &len) || !v8_is_smi(len))
		return -1;
	int64_t n = v8_smi_value(len);
	return n >= 0 ? n : -1;
}

bool v8_array_get(const struct v8_heap *h, uint64_t arr, int64_t i, uint64_t *val)
{
	return v8_field(h, arr, h->L->v[L_FIXED_ARRAY_DATA] + (int32_t)(8 * i), val);
}
