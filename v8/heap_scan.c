/* heap_scan.c — finding async generator objects in page copies by their shape and maps. */
#include "heap_scan.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "heap.h"

enum { MAPS_MAX = 1 << 16, CONTINUATION_MAX = 1 << 24 };

void heap_scan_init(struct heap_scan *s, const struct v8_layout *L, size_t max_candidates)
{
	memset(s, 0, sizeof(*s));
	s->L = L;
	s->max_candidates = max_candidates;
	u64map_init(&s->maps, 0);
	u64map_init(&s->known, 0);
}

void heap_scan_free(struct heap_scan *s)
{
	u64map_free(&s->maps);
	u64map_free(&s->known);
	free(s->cand);
	memset(s, 0, sizeof(*s));
}

static uint64_t at(const uint8_t *buf, size_t i)
{
	uint64_t v;
	memcpy(&v, buf + i, 8);
	return v;
}

static bool smi_in(uint64_t w, int64_t lo, int64_t hi)
{
	return v8_is_smi(w) && v8_smi_value(w) >= lo && v8_smi_value(w) <= hi;
}

/* Shaped like a JSGeneratorObject at buf[i]: the offsets o[] are those of its map, elements,
 * function, context, register file, resume mode and continuation. */
enum { O_ELEMENTS, O_FUNCTION, O_CONTEXT, O_REGISTERS, O_RESUME, O_CONT, O_N };
static bool generator_shaped(const uint8_t *buf, size_t len, size_t i, const int32_t *o, size_t span)
{
	if (i + span > len)
		return false;
	return v8_is_heap_object(at(buf, i + (size_t)o[O_ELEMENTS])) && v8_is_heap_object(at(buf, i + (size_t)o[O_FUNCTION])) &&
	       v8_is_heap_object(at(buf, i + (size_t)o[O_CONTEXT])) && v8_is_heap_object(at(buf, i + (size_t)o[O_REGISTERS])) &&
	       smi_in(at(buf, i + (size_t)o[O_RESUME]), 0, 2) && smi_in(at(buf, i + (size_t)o[O_CONT]), -2, CONTINUATION_MAX);
}

static bool known(const struct heap_scan *s, uint64_t w)
{
	uint64_t v;
	return u64map_get(&s->known, w, &v);
}

void heap_scan_buffer(struct heap_scan *s, uint64_t addr, const uint8_t *buf, size_t len)
{
	const struct v8_layout *L = s->L;
	/* (a JSObject's elements follow its map and properties: 16 on every line) */
	static const enum v8_item items[O_N] = {L_COUNT, L_JSGEN_FUNCTION, L_JSGEN_CONTEXT,
						L_JSGEN_REGISTERS, L_JSGEN_RESUME_MODE, L_JSGEN_CONTINUATION};
	int32_t o[O_N] = {[O_ELEMENTS] = 16};
	size_t span = 24;
	for (int k = O_FUNCTION; k < O_N; k++) {
		if (!v8_has(L, items[k]) || L->v[items[k]] <= 0 || L->v[items[k]] > 4096)
			return;
		o[k] = L->v[items[k]];
		if ((size_t)o[k] + 8 > span)
			span = (size_t)o[k] + 8;
	}
	if (addr & 7)
		return;
	len &= ~(size_t)7;
	s->bytes += len;
	for (size_t i = 0; i + span <= len; i += 8) {
		uint64_t w = at(buf, i);
		if (!v8_is_heap_object(w) || !generator_shaped(buf, len, i, o, span))
			continue;
		if (s->maps_known && !known(s, w))
			continue;
		if (s->ncand == s->max_candidates) {
			s->cand_overflow = true;
			continue;
		}
		XGROW(s->cand, s->capcand, s->ncand + 1);
		s->cand[s->ncand++] = (struct heap_object_candidate){.addr = addr + i, .map = w};
		if (s->maps.len < MAPS_MAX)
			u64map_put(&s->maps, w, 1);
		else if (!u64map_get(&s->maps, w, &(uint64_t){0}))
			s->maps_overflow = true;
	}
}

size_t heap_scan_maps(const struct heap_scan *s, uint64_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->maps.cap && n < max; i++)
		if (s->maps.slots[i].key)
			out[n++] = s->maps.slots[i].key;
	return n;
}

void heap_scan_keep_maps(struct heap_scan *s, const uint64_t *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v8_is_heap_object(maps[i]))
			u64map_put(&s->known, maps[i], 1);
}

size_t heap_scan_objects(const struct heap_scan *s, uint64_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->ncand && n < max; i++)
		if (known(s, s->cand[i].map))
			out[n++] = s->cand[i].addr;
	return n;
}

void heap_scan_restart_known(struct heap_scan *s)
{
	s->ncand = 0;
	s->cand_overflow = false;
	s->maps_known = true;
	s->bytes = 0;
}
