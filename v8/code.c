/* code.c — Code objects and the PC → Code lookup. */
#include "code.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

/* Instructions start kCodeAlignment-aligned (32 or 64 bytes on x64): holders are looked for at
 * 32-byte steps. Type checks cost two reads; once the holder map is known, only a few more are
 * spent on other candidate words (the map could have changed). */
enum { HEADER_READ = 80, SCAN_CHUNK = 4096, SCAN_STEP = 32, TYPE_CHECKS_LEARNING = 512,
       TYPE_CHECKS_KNOWN = 16 };

static enum code_tier tier_of(const struct v8_layout *L, int kind)
{
	if (v8_has(L, L_CODEKIND_BASELINE) && kind == L->v[L_CODEKIND_BASELINE])
		return CT_BASELINE;
	if (v8_has(L, L_CODEKIND_MAGLEV) && kind == L->v[L_CODEKIND_MAGLEV])
		return CT_MAGLEV;
	if (v8_has(L, L_CODEKIND_TURBOFAN) && kind == L->v[L_CODEKIND_TURBOFAN])
		return CT_TURBOFAN;
	return CT_OTHER;
}

static uint64_t word_at(const uint8_t *hdr, int32_t off)
{
	uint64_t v;
	memcpy(&v, hdr + off, 8);
	return v;
}

static uint32_t u32_at(const uint8_t *hdr, int32_t off)
{
	uint32_t v;
	memcpy(&v, hdr + off, 4);
	return v;
}

/* Decode a Code header; `known_map` (0 = none) is a map already known to be Code's. */
static bool code_read(const struct v8_heap *h, uint64_t code, uint64_t known_map, struct v8_code *out)
{
	const struct v8_layout *L = h->L;
	/* fields read from the header; the instruction start is one unless instructions are inline */
	static const enum v8_item fields[] = {L_CODE_INSTR_SIZE, L_CODE_FLAGS, L_CODE_SPT,
					      L_CODE_DEOPT_DATA, L_CODE_INSTR_START};
	size_t nfields = sizeof(fields) / sizeof(fields[0]) - (L->v[L_CODE_INSTR_INLINE] ? 1 : 0);
	for (size_t i = 0; i < nfields; i++)
		if (!v8_has(L, fields[i]) || L->v[fields[i]] < 0 || L->v[fields[i]] + 8 > HEADER_READ)
			return false;
	uint8_t hdr[HEADER_READ];
	if (!v8_has(L, L_CODE_INSTR_START) || !v8_is_heap_object(code) ||
	    !v8_read_obj(h, code, 0, hdr, sizeof(hdr)))
		return false;
	memset(out, 0, sizeof(*out));
	out->map = word_at(hdr, L->v[L_HEAPOBJECT_MAP]);
	if (out->map != known_map && !v8_is(h, code, L_T_CODE))
		return false;
	out->code = code;
	uint32_t flags = u32_at(hdr, L->v[L_CODE_FLAGS]);
	out->kind = (int)((flags & (uint32_t)L->v[L_CODE_KIND_MASK]) >> L->v[L_CODE_KIND_SHIFT]);
	out->tier = tier_of(L, out->kind);
	int32_t size = (int32_t)u32_at(hdr, L->v[L_CODE_INSTR_SIZE]);
	if (size <= 0 || size > CODE_SCAN_MAX * 16)
		return false;
	out->size = (uint64_t)size;
	if (L->v[L_CODE_INSTR_INLINE])
		out->start = code - 1 + (uint64_t)L->v[L_CODE_INSTR_START];
	else
		out->start = word_at(hdr, L->v[L_CODE_INSTR_START]);
	out->spt = word_at(hdr, L->v[L_CODE_SPT]);
	out->deopt = word_at(hdr, L->v[L_CODE_DEOPT_DATA]);
	return out->start != 0;
}

void code_finder_init(struct code_finder *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->cache = xcalloc(CODE_CACHE_SLOTS, sizeof(*cf->cache));
	cf->held = xcalloc(CODE_CACHE_SLOTS, sizeof(*cf->held));
	cf->walk = 1;
	u64map_init(&cf->by_code, 4 * CODE_CACHE_SLOTS);
	u64map_init(&cf->by_pc, 16 * CODE_CACHE_SLOTS);
}

void code_finder_free(struct code_finder *cf)
{
	free(cf->cache);
	free(cf->held);
	u64map_free(&cf->by_code);
	u64map_free(&cf->by_pc);
	code_ranges_free(&cf->ranges);
	memset(cf, 0, sizeof(*cf));
}

/* Keep c in the cache, and which slot holds the code at `pc` (what positions_inlined_at asks
 * before the next sample's frames are decoded, to copy their inlined functions in the batch). */
static void remember(struct code_finder *cf, const struct v8_code *c, uint64_t pc)
{
	uint64_t k;
	if (u64map_get(&cf->by_code, c->code, &k) && k && cf->cache[k - 1].code == c->code) {
		struct v8_code *at = &cf->cache[k - 1];
		if (at->start != c->start || at->size != c->size) {
			code_ranges_remove(&cf->ranges, at->start, (uint32_t)(k - 1));
			code_ranges_insert(&cf->ranges, c->start, c->size, (uint32_t)(k - 1));
		}
		*at = *c;
		cf->held[k - 1] = cf->walk;
		u64map_put(&cf->by_pc, pc, k);
		return;
	}
	k = cf->next_slot + 1;
	cf->next_slot = (cf->next_slot + 1) % CODE_CACHE_SLOTS;
	struct v8_code *old = &cf->cache[k - 1];
	uint64_t was;
	if (old->code && u64map_get(&cf->by_code, old->code, &was) && was == k)
		u64map_put(&cf->by_code, old->code, 0);
	if (old->code)
		code_ranges_remove(&cf->ranges, old->start, (uint32_t)(k - 1));
	*old = *c;
	code_ranges_insert(&cf->ranges, c->start, c->size, (uint32_t)(k - 1));
	cf->held[k - 1] = cf->walk; /* found through the function or the holder: it names c */
	u64map_put(&cf->by_code, c->code, k);
	u64map_put(&cf->by_pc, pc, k);
}

/* The object holding the instructions: an InstructionStream (V8 >= 11.1.204), else the Code. */
struct holder_shape {
	bool inline_code;
	int32_t body;     /* offset of the first instruction in the holder */
	int32_t back_ptr; /* InstructionStream → Code */
	enum v8_item type;
};

static bool holder_shape(const struct v8_layout *L, struct holder_shape *s)
{
	s->inline_code = L->v[L_CODE_INSTR_INLINE] != 0;
	if (s->inline_code) {
		s->body = L->v[L_CODE_INSTR_START];
		s->back_ptr = -1;
		s->type = L_T_CODE;
		return v8_has(L, L_CODE_INSTR_START);
	}
	s->body = L->v[L_IS_BODY];
	s->back_ptr = L->v[L_IS_CODE];
	s->type = L_T_INSTRUCTION_STREAM;
	return v8_has(L, L_IS_BODY) && v8_has(L, L_IS_CODE) && v8_has(L, L_T_INSTRUCTION_STREAM);
}

/* The tagged holder of c's instructions (an InstructionStream: instructions apart from c). */
static uint64_t holder_of(const struct holder_shape *s, const struct v8_code *c)
{
	return c->start - (uint64_t)s->body + 1;
}

/* Does the holder of c's instructions still name c? A dead Code object outside the code space
 * (V8 >= 11.1.204 keeps it apart from its InstructionStream) can read as it was after its
 * instructions' memory was swept and given to new code; the InstructionStream there names its
 * own Code. */
static bool holder_names(const struct v8_heap *h, const struct v8_code *c)
{
	struct holder_shape s;
	uint64_t code;
	if (!holder_shape(h->L, &s) || s.inline_code)
		return true; /* the Code holds its instructions: its own header is what is compared */
	return v8_field(h, holder_of(&s, c), s.back_ptr, &code) && code == c->code;
}

/* Is the cached Code of this slot still there, unchanged? (Its memory may have been reused.) */
static bool still_there(struct code_finder *cf, const struct v8_heap *h, struct v8_code *c,
			struct v8_code *out)
{
	struct v8_code now;
	size_t slot = (size_t)(c - cf->cache);
	if (code_read(h, c->code, c->map, &now) && now.start == c->start && now.size == c->size &&
	    now.kind == c->kind && now.spt == c->spt && now.deopt == c->deopt &&
	    (cf->held[slot] == cf->walk || holder_names(h, c))) {
		cf->held[slot] = cf->walk;
		*out = now;
		cf->hits++;
		return true;
	}
	cf->stale++;
	code_ranges_remove(&cf->ranges, c->start, (uint32_t)slot);
	memset(c, 0, sizeof(*c));
	return false;
}

/* The slot a code_find of this very pc found before, if it still holds pc (NULL: none). */
static const struct v8_code *cached_for_pc(const struct code_finder *cf, uint64_t pc)
{
	uint64_t k;
	if (u64map_get(&cf->by_pc, pc, &k) && k && cf->cache[k - 1].code && v8_code_contains(&cf->cache[k - 1], pc))
		return &cf->cache[k - 1];
	return NULL;
}

const struct v8_code *code_cached_at(const struct code_finder *cf, uint64_t pc)
{
	const struct v8_code *c = cached_for_pc(cf, pc);
	if (c)
		return c;
	/* a pc not asked before (another return address in known code): the highest range that
	 * holds it */
	size_t it = CODE_RANGES_FIRST;
	long slot = code_ranges_next(&cf->ranges, pc, &it);
	return slot >= 0 ? &cf->cache[slot] : NULL;
}

int code_check_ranges(const struct code_finder *cf, const struct v8_layout *L, uint64_t pc,
		      uint64_t addr[2], uint32_t len[2])
{
	const struct v8_code *c = code_cached_at(cf, pc);
	struct holder_shape s;
	if (!c)
		return 0;
	addr[0] = c->code - 1;
	len[0] = HEADER_READ;
	if (!holder_shape(L, &s) || s.inline_code || s.back_ptr < 0)
		return 1;
	addr[1] = holder_of(&s, c) - 1 + (uint64_t)s.back_ptr;
	len[1] = 8;
	return 2;
}

static bool from_cache(struct code_finder *cf, const struct v8_heap *h, uint64_t pc,
		       struct v8_code *out)
{
	/* a pc found before: its slot; else every cached range that holds it (code_cached_at's
	 * first may be stale where another is not) */
	const struct v8_code *at = cached_for_pc(cf, pc);
	if (at)
		return still_there(cf, h, &cf->cache[at - cf->cache], out);
	size_t it = CODE_RANGES_FIRST;
	for (long i; (i = code_ranges_next(&cf->ranges, pc, &it)) >= 0;) {
		/* (a stale one is dropped from the ranges: those below it keep their places) */
		if (still_there(cf, h, &cf->cache[i], out)) {
			u64map_put(&cf->by_pc, pc, (uint64_t)i + 1);
			return true;
		}
	}
	return false;
}

/* Is the object at untagged address x (whose first word is map) the holder of code containing
 * pc? */
static bool try_holder(struct code_finder *cf, const struct v8_heap *h, const struct holder_shape *s,
		       uint64_t x, uint64_t map, uint64_t pc, int *type_checks, struct v8_code *out)
{
	if (!v8_is_heap_object(map))
		return false;
	if (cf->holder_map != map) {
		int limit = cf->holder_map ? TYPE_CHECKS_KNOWN : TYPE_CHECKS_LEARNING;
		if (++*type_checks > limit || !v8_is(h, x + 1, s->type))
			return false;
	}
	uint64_t code = x + 1;
	if (!s->inline_code && !v8_field(h, x + 1, s->back_ptr, &code))
		return false;
	struct v8_code c;
	if (!code_read(h, code, cf->code_map, &c) || c.start != x + (uint64_t)s->body ||
	    !v8_code_contains(&c, pc))
		return false;
	cf->holder_map = map;
	cf->code_map = c.map;
	*out = c;
	return true;
}

static bool scan(struct code_finder *cf, const struct v8_heap *h, uint64_t pc, struct v8_code *out)
{
	struct holder_shape s;
	if (!holder_shape(h->L, &s) || s.body <= 0)
		return false;
	cf->scans++;
	uint8_t buf[SCAN_CHUNK];
	uint64_t wlo = 0, whi = 0; /* buf holds [wlo, whi) */
	int type_checks = 0;
	uint64_t first = pc & ~(uint64_t)(SCAN_STEP - 1);
	for (uint64_t b = first; pc - b <= CODE_SCAN_MAX && b > (uint64_t)s.body; b -= SCAN_STEP) {
		uint64_t x = b - (uint64_t)s.body;
		if (x < wlo || x + 8 > whi) {
			whi = x + 8;
			wlo = whi - SCAN_CHUNK;
			if (!mem_read(h->mem, wlo, buf, SCAN_CHUNK)) {
				/* near the start of the mapping: fall back to a word at a time */
				wlo = x;
				if (!mem_read(h->mem, wlo, buf, 8))
					break;
			}
		}
		uint64_t map;
		memcpy(&map, buf + (x - wlo), 8);
		if (try_holder(cf, h, &s, x, map, pc, &type_checks, out))
			return true;
	}
	cf->scan_fail++;
	return false;
}

bool code_find(struct code_finder *cf, const struct v8_heap *h, uint64_t pc, uint64_t hint,
	       struct v8_code *out)
{
	if (hint && code_read(h, hint, cf->code_map, out) && v8_code_contains(out, pc)) {
		cf->code_map = out->map;
		struct holder_shape s;
		uint64_t map;
		if (!cf->holder_map && holder_shape(h->L, &s) && s.body > 0 &&
		    mem_read_u64(h->mem, out->start - (uint64_t)s.body, &map) &&
		    v8_is(h, out->start - (uint64_t)s.body + 1, s.type))
			cf->holder_map = map;
		remember(cf, out, pc);
		return true;
	}
	if (from_cache(cf, h, pc, out))
		return true;
	if (!scan(cf, h, pc, out))
		return false;
	remember(cf, out, pc);
	return true;
}

