/* objects.c — own properties, maps and constructors of JavaScript objects. */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "strings.h"

enum { MAX_PROPERTIES = 1024, MAX_BACK_POINTERS = 64, KEY_PREFETCH = 64, KEYS_PREFETCHED = 128 };

/* The keys of a descriptor array or dictionary (every `entry` words from `raw`, the key at word
 * `key_at`) are each looked at by the loops below (their map, for its type; a string's length and
 * first characters, for a name compared): one batched read of the first KEY_PREFETCH bytes of
 * each, instead of a remote read per key — most of what naming a method call cost (the bundle:
 * ~11 of 26 reads per sample). */
static void prefetch_keys(const struct v8_heap *h, const uint64_t *raw, int64_t n, int32_t entry,
			  int32_t key_at)
{
	uint64_t addrs[KEYS_PREFETCHED];
	uint32_t lens[KEYS_PREFETCHED];
	size_t k = 0;
	for (int64_t i = 0; i < n && k < KEYS_PREFETCHED; i++) {
		uint64_t key = raw[i * entry + key_at];
		if (v8_is_heap_object(key)) {
			addrs[k] = key - 1;
			lens[k++] = KEY_PREFETCH;
		}
	}
	mem_prefetch(h->mem, addrs, lens, k);
}

uint64_t v8_map_of(const struct v8_heap *h, uint64_t obj)
{
	uint64_t map;
	if (!v8_is_heap_object(obj) || !v8_field(h, obj, h->L->v[L_HEAPOBJECT_MAP], &map) ||
	    !v8_is_heap_object(map))
		return 0;
	return map;
}

bool v8_map_bits(const struct v8_heap *h, uint64_t map, uint8_t *bf, uint8_t *bf2, uint32_t *bf3)
{
	const struct v8_layout *L = h->L;
	return v8_read_obj(h, map, L->v[L_MAP_BIT_FIELD], bf, 1) &&
	       v8_read_obj(h, map, L->v[L_MAP_BIT_FIELD2], bf2, 1) &&
	       v8_field_u32(h, map, L->v[L_MAP_BIT_FIELD3], bf3);
}

uint64_t v8_map_prototype(const struct v8_heap *h, uint64_t map)
{
	uint64_t proto;
	if (!v8_field(h, map, h->L->v[L_MAP_PROTOTYPE], &proto) || !v8_is_heap_object(proto) ||
	    v8_is(h, proto, L_T_ODDBALL))
		return 0;
	return proto;
}

uint64_t v8_map_constructor(const struct v8_heap *h, uint64_t map)
{
	const struct v8_layout *L = h->L;
	uint64_t c = map;
	for (int i = 0; i < MAX_BACK_POINTERS; i++) {
		if (!v8_field(h, c, L->v[L_MAP_CONSTRUCTOR], &c) || !v8_is_heap_object(c))
			return 0;
		if (!v8_is(h, c, L_T_MAP))
			break;
	}
	/* a Tuple2 {constructor, native context} holds it in some maps */
	if (v8_is(h, c, L_T_TUPLE2) && !v8_field(h, c, L->v[L_TUPLE2_VALUE1], &c))
		return 0;
	return v8_is_heap_object(c) ? c : 0;
}

struct prop_details {
	bool accessor, dont_enum, in_descriptor, is_double;
	int field_index;
};

static struct prop_details decode_details(const struct v8_layout *L, uint64_t details, bool fast)
{
	struct prop_details d = {0};
	uint32_t v = (uint32_t)v8_smi_value(details);
	uint32_t attrs = (v & (uint32_t)L->v[L_PROP_ATTR_MASK]) >> L->v[L_PROP_ATTR_SHIFT];
	d.accessor = (v & (uint32_t)L->v[L_PROP_KIND_MASK]) == (uint32_t)L->v[L_PROP_KIND_ACCESSOR];
	d.dont_enum = (attrs & (uint32_t)L->v[L_PROP_DONT_ENUM]) != 0;
	if (fast) {
		d.in_descriptor = ((v & (uint32_t)L->v[L_PROP_LOC_MASK]) >> L->v[L_PROP_LOC_SHIFT]) ==
				  (uint32_t)L->v[L_PROP_LOC_DESCRIPTOR];
		d.is_double = ((v & (uint32_t)L->v[L_PROP_REPR_MASK]) >> L->v[L_PROP_REPR_SHIFT]) ==
			      (uint32_t)L->v[L_PROP_REPR_DOUBLE];
		d.field_index = (int)((v & (uint32_t)L->v[L_PROP_INDEX_MASK]) >> L->v[L_PROP_INDEX_SHIFT]);
	}
	return d;
}

static bool is_name(const struct v8_heap *h, uint64_t key)
{
	return v8_is_heap_object(key) && (v8_is_string(h, key) || v8_is(h, key, L_T_SYMBOL));
}

/* The value of a field (FieldIndex::ForPropertyIndex): in-object slots first, then the
 * out-of-object PropertyArray. */
static bool field_value(const struct v8_heap *h, uint64_t obj, uint64_t map, int index, uint64_t *v)
{
	const struct v8_layout *L = h->L;
	uint8_t size_words, start_words;
	if (!v8_read_obj(h, map, L->v[L_MAP_INSTANCE_SIZE_WORDS], &size_words, 1) ||
	    !v8_read_obj(h, map, L->v[L_MAP_INOBJECT_START], &start_words, 1) || start_words > size_words)
		return false;
	int inobject = size_words - start_words;
	if (index < inobject)
		return v8_field(h, obj, (start_words + index) * 8, v);
	uint64_t props;
	if (!v8_field(h, obj, L->v[L_JSRECEIVER_PROPERTIES], &props) || !v8_is(h, props, L_T_PROPERTY_ARRAY))
		return false;
	return v8_field(h, props, L->v[L_PROPERTY_ARRAY_DATA] + 8 * (index - inobject), v);
}

static bool fast_properties(const struct v8_heap *h, uint64_t obj, uint64_t map, uint32_t bf3,
			    v8_property_cb cb, void *ctx)
{
	const struct v8_layout *L = h->L;
	int64_t n = (bf3 & (uint32_t)L->v[L_BF3_NOD_MASK]) >> L->v[L_BF3_NOD_SHIFT];
	uint64_t desc;
	if (n == 0)
		return true;
	if (n > MAX_PROPERTIES || !v8_field(h, map, L->v[L_MAP_DESCRIPTORS], &desc) ||
	    !v8_is_heap_object(desc))
		return false;
	int32_t entry = L->v[L_DESC_ENTRY_SIZE];
	size_t words = (size_t)n * (size_t)entry;
	uint64_t *raw = xmalloc(words * 8);
	bool ok = v8_read_obj(h, desc, L->v[L_DESC_HEADER], raw, words * 8);
	if (ok)
		prefetch_keys(h, raw, n, entry, L->v[L_DESC_KEY]);
	for (int64_t i = 0; ok && i < n; i++) {
		uint64_t *e = raw + i * entry;
		uint64_t key = e[L->v[L_DESC_KEY]], details = e[L->v[L_DESC_DETAILS]];
		if (!v8_is_smi(details) || !is_name(h, key))
			continue;
		struct prop_details d = decode_details(L, details, true);
		struct v8_property p = {.key = key, .accessor = d.accessor, .dont_enum = d.dont_enum};
		if (d.in_descriptor)
			p.value = e[L->v[L_DESC_VALUE]];
		else if (d.is_double || !field_value(h, obj, map, d.field_index, &p.value))
			p.value = 0;
		if (!cb(ctx, &p))
			break;
	}
	free(raw);
	return ok;
}

static bool dictionary_properties(const struct v8_heap *h, uint64_t obj, v8_property_cb cb,
				  void *ctx)
{
	const struct v8_layout *L = h->L;
	uint64_t dict, cap_raw;
	/* NameDictionary has an instance type of its own that no version exports: it is known by its
	 * shape (a FixedArray's header, a power-of-two capacity, entries that fill the length) */
	if (!v8_field(h, obj, L->v[L_JSRECEIVER_PROPERTIES], &dict) || !v8_is_heap_object(dict))
		return false;
	int64_t len = v8_array_length(h, dict);
	int64_t first = L->v[L_NAMEDICT_PREFIX_START] + L->v[L_NAMEDICT_PREFIX_SIZE];
	int32_t entry = L->v[L_NAMEDICT_ENTRY_SIZE];
	/* HashTable: [nof elements, nof deleted, capacity, prefix…, entries…] */
	if (len <= first || !v8_array_get(h, dict, 2, &cap_raw) || !v8_is_smi(cap_raw))
		return false;
	int64_t cap = v8_smi_value(cap_raw);
	if (cap <= 0 || cap > MAX_PROPERTIES * 4 || (cap & (cap - 1)) != 0 || first + cap * entry != len)
		return false;
	size_t words = (size_t)(cap * entry);
	uint64_t *raw = xmalloc(words * 8);
	bool ok = v8_read_obj(h, dict, L->v[L_FIXED_ARRAY_DATA] + (int32_t)(8 * first), raw, words * 8);
	if (ok)
		prefetch_keys(h, raw, cap, entry, 0);
	for (int64_t i = 0; ok && i < cap; i++) {
		uint64_t *e = raw + i * entry;
		if (!v8_is_smi(e[2]) || !is_name(h, e[0]))
			continue; /* empty or deleted slot */
		struct prop_details d = decode_details(L, e[2], false);
		struct v8_property p = {.key = e[0], .value = e[1], .accessor = d.accessor,
					.dont_enum = d.dont_enum};
		if (!cb(ctx, &p))
			break;
	}
	free(raw);
	return ok;
}

bool v8_own_properties(const struct v8_heap *h, uint64_t obj, v8_property_cb cb, void *ctx)
{
	const struct v8_layout *L = h->L;
	uint64_t map = v8_map_of(h, obj);
	uint8_t bf, bf2;
	uint32_t bf3;
	if (!map || !v8_map_bits(h, map, &bf, &bf2, &bf3) || v8_is(h, obj, L_T_JS_GLOBAL_OBJECT) ||
	    v8_is(h, obj, L_T_JS_PROXY))
		return false;
	if ((bf3 >> L->v[L_BF3_DICT_SHIFT]) & 1)
		return dictionary_properties(h, obj, cb, ctx);
	return fast_properties(h, obj, map, bf3, cb, ctx);
}

bool v8_string_equals(const struct v8_heap *h, uint64_t str, const char *s)
{
	return v8_string_equals_n(h, str, s, strlen(s));
}

bool v8_string_equals_n(const struct v8_heap *h, uint64_t str, const char *s, size_t n)
{
	int64_t len = v8_string_length(h, str);
	if (len < 0 || (size_t)len > n) /* UTF-16 units never outnumber UTF-8 bytes */
		return false;
	struct strbuf b;
	sb_init(&b);
	bool eq = v8_string_utf8(h, str, (size_t)len, &b) && b.len == n && memcmp(b.s ? b.s : "", s, n) == 0;
	sb_free(&b);
	return eq;
}

bool v8_symbol_is(const struct v8_heap *h, uint64_t sym, const char *description)
{
	uint64_t d;
	return v8_is(h, sym, L_T_SYMBOL) && v8_field(h, sym, h->L->v[L_SYMBOL_DESCRIPTION], &d) &&
	       v8_is_heap_object(d) && v8_string_equals(h, d, description);
}
