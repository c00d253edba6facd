/* heap_scan.c — finding async generator objects in page copies by their maps. */
#include "heap_scan.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "heap.h"

enum { MAPS_MAX = 1 << 20, CONTINUATION_MAX = 1 << 24 };

void heap_scan_init(struct heap_scan *s, const struct v8_layout *L, size_t max_candidates)
{
	memset(s, 0, sizeof(*s));
	s->L = L;
	s->max_candidates = max_candidates;
	u64map_init(&s->maps, MAPS_MAX);
}

void heap_scan_free(struct heap_scan *s)
{
	u64map_free(&s->maps);
	free(s->cand);
	memset(s, 0, sizeof(*s));
}

static bool is_meta(const struct heap_scan *s, uint64_t w)
{
	for (size_t i = 0; i < s->nmeta; i++)
		if (s->meta[i] == w)
			return true;
	return false;
}

void heap_scan_add_meta(struct heap_scan *s, uint64_t meta)
{
	if (!v8_is_heap_object(meta) || is_meta(s, meta))
		return;
	if (s->nmeta == HEAP_SCAN_META_MAX) {
		s->meta_overflow = true;
		return;
	}
	s->meta[s->nmeta++] = meta;
}

static bool async_type(const struct v8_layout *L, int t)
{
	return (v8_has(L, L_T_JS_ASYNC_FUNCTION_OBJECT) && t == L->v[L_T_JS_ASYNC_FUNCTION_OBJECT]) ||
	       (v8_has(L, L_T_JS_ASYNC_GENERATOR_OBJECT) && t == L->v[L_T_JS_ASYNC_GENERATOR_OBJECT]);
}

static uint64_t at(const uint8_t *buf, size_t i)
{
	uint64_t v;
	memcpy(&v, buf + i, 8);
	return v;
}

/* Shaped like a JSGeneratorObject: function and context pointers, a Smi continuation (suspend id
 * >= 0, closed -1, running -2). */
static bool generator_shaped(const struct v8_layout *L, const uint8_t *buf, size_t len, size_t i)
{
	int32_t fo = L->v[L_JSGEN_FUNCTION], co = L->v[L_JSGEN_CONTEXT], ko = L->v[L_JSGEN_CONTINUATION];
	if (fo <= 0 || co <= 0 || ko <= 0 || i + (size_t)ko + 8 > len || i + (size_t)fo + 8 > len ||
	    i + (size_t)co + 8 > len)
		return false;
	uint64_t k = at(buf, i + (size_t)ko);
	int64_t kv = v8_smi_value(k);
	return v8_is_heap_object(at(buf, i + (size_t)fo)) && v8_is_heap_object(at(buf, i + (size_t)co)) &&
	       v8_is_smi(k) && kv >= -2 && kv < CONTINUATION_MAX;
}

void heap_scan_buffer(struct heap_scan *s, uint64_t addr, const uint8_t *buf, size_t len)
{
	const struct v8_layout *L = s->L;
	if ((addr & 7) || !v8_has(L, L_JSGEN_FUNCTION) || !v8_has(L, L_JSGEN_CONTEXT) || !v8_has(L, L_JSGEN_CONTINUATION) ||
	    !v8_has(L, L_MAP_INSTANCE_TYPE))
		return;
	int32_t type_off = L->v[L_MAP_INSTANCE_TYPE];
	len &= ~(size_t)7;
	s->bytes += len;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = at(buf, i);
		if (!v8_is_heap_object(w))
			continue;
		uint64_t self = addr + i + 1;
		if (w == self && !is_meta(s, w)) {
			heap_scan_add_meta(s, w);
			s->meta_grew = true;
		}
		if (is_meta(s, w) && type_off >= 0 && i + (size_t)type_off + 2 <= len) {
			uint16_t t;
			memcpy(&t, buf + i + (size_t)type_off, 2);
			s->nmaps++;
			if (async_type(L, t))
				u64map_put(&s->maps, self, (uint64_t)t + 1);
			continue;
		}
		if (s->maps_known) {
			uint64_t v;
			if (!u64map_get(&s->maps, w, &v))
				continue;
		} else if (!generator_shaped(L, buf, len, i)) {
			continue;
		}
		if (s->ncand == s->max_candidates) {
			s->cand_overflow = true;
			continue;
		}
		XGROW(s->cand, s->capcand, s->ncand + 1);
		s->cand[s->ncand++] = (struct heap_object_candidate){.addr = addr + i, .map = w};
	}
}

size_t heap_scan_objects(const struct heap_scan *s, uint64_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->ncand && n < max; i++) {
		uint64_t v;
		if (u64map_get(&s->maps, s->cand[i].map, &v))
			out[n++] = s->cand[i].addr;
	}
	return n;
}

void heap_scan_restart_known(struct heap_scan *s)
{
	s->ncand = 0;
	s->cand_overflow = false;
	s->maps_known = true;
	s->bytes = 0;
}
