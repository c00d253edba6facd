/* function.c — SharedFunctionInfo decoding: names, scripts, definition positions. */
#include "function.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "strings.h"

enum { MAX_FUNCTIONS = 1 << 16, SCOPE_SLOTS = 16, BLOCK = 1024 };

void function_cache_init(struct function_cache *c, struct intern *strings,
			 struct script_cache *scripts)
{
	memset(c, 0, sizeof(*c));
	pool_init(&c->entries, sizeof(struct v8_function), BLOCK);
	u64map_init(&c->idx, 0);
	c->strings = strings;
	c->scripts = scripts;
}

void function_cache_free(struct function_cache *c)
{
	pool_free(&c->entries);
	u64map_free(&c->idx);
	memset(c, 0, sizeof(*c));
}

static bool scope_slot(const struct v8_heap *h, uint64_t si, int64_t i, uint64_t *v)
{
	/* ScopeInfo slots follow the map word: untagged + 8 + 8*i */
	return i >= 0 && v8_field(h, si, 8 + (int32_t)(8 * i), v);
}

static bool is_string_or_zero(const struct v8_heap *h, uint64_t v)
{
	return v == 0 || v8_is_string(h, v);
}

bool scope_info_decode(const struct v8_heap *h, uint64_t si, struct scope_info_parts *out)
{
	const struct v8_layout *L = h->L;
	memset(out, 0, sizeof(*out));
	out->start = out->end = -1;
	uint64_t raw_flags, nlocals_raw;
	if (!scope_slot(h, si, 0, &raw_flags) ||
	    !scope_slot(h, si, L->v[L_SCOPEINFO_NLOCALS], &nlocals_raw) || !v8_is_smi(nlocals_raw))
		return false;
	/* flags are a Smi before V8 12.8, a raw uint32 (+ padding) after */
	uint32_t flags = (uint32_t)raw_flags ? (uint32_t)raw_flags : (uint32_t)(raw_flags >> 32);
	int64_t n = v8_smi_value(nlocals_raw);
	if (n < 0 || n > 1 << 16)
		return false;
	bool pos_in_header = L->v[L_SCOPEINFO_POS_IN_HEADER] != 0;
	int64_t idx = L->v[L_SCOPEINFO_FIRST_VARS];
	idx += (n < L->v[L_SCOPEINFO_MAX_INLINED_LOCALS] ? n : 1) + n; /* names (or a hash table), infos */
	if ((flags >> L->v[L_SCOPEFLAG_SAVED_CLASS_VAR_BIT]) & 1)
		idx += 1;
	if (v8_has(L, L_SCOPEFLAG_RECEIVER_SHIFT)) {
		uint32_t receiver = (flags >> L->v[L_SCOPEFLAG_RECEIVER_SHIFT]) & 3;
		if (receiver == 1 || receiver == 2) /* STACK or CONTEXT: its slot index follows */
			idx += 1;
	}
	bool has_funcvar = ((flags >> L->v[L_SCOPEFLAG_FUNCVAR_SHIFT]) & 3) != 0;
	bool has_inferred = ((flags >> L->v[L_SCOPEFLAG_INFERRED_NAME_BIT]) & 1) != 0;
	uint64_t v;
	if (has_funcvar) {
		if (!scope_slot(h, si, idx, &v) || !is_string_or_zero(h, v))
			return false;
		out->function_name = v8_is_smi(v) ? 0 : v;
		idx += 2;
	}
	if (has_inferred) {
		if (!scope_slot(h, si, idx, &v))
			return false;
		out->inferred_name = v8_is_heap_object(v) && v8_is_string(h, v) ? v : 0;
		idx += 1;
	}
	uint64_t s, e;
	int64_t pidx = pos_in_header ? 3 : idx;
	if (scope_slot(h, si, pidx, &s) && scope_slot(h, si, pidx + 1, &e) && v8_is_smi(s) &&
	    v8_is_smi(e) && v8_smi_value(s) >= 0 && v8_smi_value(e) >= v8_smi_value(s)) {
		out->start = (int32_t)v8_smi_value(s);
		out->end = (int32_t)v8_smi_value(e);
	}
	return true;
}

static bool is_uncompiled_data(const struct v8_heap *h, uint64_t obj)
{
	return v8_is(h, obj, L_T_UNCOMPILED_WITHOUT) || v8_is(h, obj, L_T_UNCOMPILED_WITH) ||
	       v8_is(h, obj, L_T_UNCOMPILED_WITHOUT_JOB) || v8_is(h, obj, L_T_UNCOMPILED_WITH_JOB);
}

static uint32_t intern_name(struct function_cache *c, const struct v8_heap *h, uint64_t str)
{
	struct strbuf b;
	sb_init(&b);
	uint32_t id = UINT32_MAX;
	if (str && v8_string_utf8(h, str, V8_NAME_MAX_UNITS, &b) && b.len)
		id = intern_n(c->strings, b.s, b.len);
	sb_free(&b);
	return id;
}

/* The function's definition and start lines in its script (0 while the script's line table
 * cannot be had). */
static void set_lines(struct function_cache *c, const struct v8_heap *h, struct v8_function *f,
		      struct v8_script *s)
{
	/* the definition is the `function` token when V8 recorded its distance */
	int64_t pos = f->start_pos;
	if (f->token_offset > 0 && f->token_offset <= pos)
		pos -= f->token_offset;
	script_position(c->scripts, h, s, pos, &f->def_line, &f->def_col);
	if (pos == f->start_pos) {
		f->start_line = f->def_line;
		f->start_col = f->def_col;
	} else {
		script_position(c->scripts, h, s, f->start_pos, &f->start_line, &f->start_col);
	}
}

static void decode(struct function_cache *c, const struct v8_heap *h, struct v8_function *f)
{
	const struct v8_layout *L = h->L;
	uint64_t nsi = f->name_or_scope_info;
	uint64_t name = 0, inferred = 0;
	f->start_pos = -1;
	if (v8_is_heap_object(nsi)) {
		if (v8_is_string(h, nsi)) {
			name = nsi;
		} else if (v8_is(h, nsi, L_T_SCOPE_INFO)) {
			struct scope_info_parts p;
			if (scope_info_decode(h, nsi, &p)) {
				name = p.function_name;
				inferred = p.inferred_name;
				f->start_pos = p.start;
			}
		}
	}
	/* lazily compiled functions keep an inferred name and positions in UncompiledData */
	uint64_t fdata = 0;
	if (v8_has(L, L_SFI_FUNCTION_DATA) && v8_field(h, f->sfi, L->v[L_SFI_FUNCTION_DATA], &fdata) &&
	    is_uncompiled_data(h, fdata)) {
		uint64_t in;
		int32_t sp;
		if (!inferred && v8_field(h, fdata, L->v[L_UNCOMPILED_INFERRED_NAME], &in) &&
		    v8_is_string(h, in))
			inferred = in;
		if (f->start_pos < 0 && v8_field_i32(h, fdata, L->v[L_UNCOMPILED_START], &sp) && sp >= 0)
			f->start_pos = sp;
	}
	uint32_t id = intern_name(c, h, name), inf = intern_name(c, h, inferred);
	f->shared_name_id = id != UINT32_MAX ? id : 0;
	f->inferred_id = inf != UINT32_MAX ? inf : 0;
	if (id == UINT32_MAX)
		id = inf;
	f->name_id = id != UINT32_MAX ? id : intern_str(c->strings, "(anonymous)");
	if (v8_has(L, L_SFI_FLAGS))
		v8_field_u32(h, f->sfi, L->v[L_SFI_FLAGS], &f->flags);

	f->file_id = intern_str(c->strings, "");
	f->has_script = false;
	f->script = 0;
	struct v8_script *s = script_get(c->scripts, h, f->script_field);
	if (s) {
		f->has_script = true;
		f->script = f->script_field;
		f->file_id = s->name_id;
	}
	f->def_line = f->def_col = f->start_line = f->start_col = 0;
	if (s && f->start_pos >= 0)
		set_lines(c, h, f, s);
}

static struct v8_function *entry(struct function_cache *c, size_t i)
{
	return pool_at(&c->entries, i);
}

void function_cache_begin_walk(struct function_cache *c)
{
	if (c->entries.n >= MAX_FUNCTIONS) {
		pool_clear(&c->entries);
		u64map_clear(&c->idx);
	}
}

const struct v8_function *function_of_sfi(struct function_cache *c, const struct v8_heap *h,
					  uint64_t sfi)
{
	const struct v8_layout *L = h->L;
	if (!v8_is(h, sfi, L_T_SFI))
		return NULL;
	uint64_t nsi, script;
	int16_t tok = -1;
	if (!v8_field(h, sfi, L->v[L_SFI_NAME], &nsi) || !v8_field(h, sfi, L->v[L_SFI_SCRIPT], &script))
		return NULL;
	if (v8_has(L, L_SFI_TOKEN_OFFSET))
		v8_read_obj(h, sfi, L->v[L_SFI_TOKEN_OFFSET], &tok, sizeof(tok));
	uint64_t k;
	if (u64map_get(&c->idx, sfi, &k)) {
		struct v8_function *f = entry(c, k - 1);
		if (f->name_or_scope_info == nsi && f->script_field == script && f->token_offset == tok) {
			c->hits++;
			struct v8_script *s = f->has_script && f->def_line == 0 && f->start_pos >= 0
						      ? script_cached(c->scripts, f->script)
						      : NULL;
			/* its script had no line table when it was decoded: try again, also once
			 * another function's lookup has built the table (a launch-mode profile kept
			 * its hot function without a definition line for the run: 1 CI run in ~50) */
			if (s)
				set_lines(c, h, f, s);
			return f;
		}
	}
	c->misses++;
	if (!u64map_get(&c->idx, sfi, &k)) {
		k = pool_add(&c->entries) + 1;
		u64map_put(&c->idx, sfi, k);
	}
	struct v8_function *f = entry(c, k - 1);
	memset(f, 0, sizeof(*f));
	f->sfi = sfi;
	f->name_or_scope_info = nsi;
	f->script_field = script;
	f->token_offset = tok;
	decode(c, h, f);
	return f;
}

const struct v8_function *function_of_jsfunction(struct function_cache *c, const struct v8_heap *h,
						 uint64_t jsfunction)
{
	uint64_t sfi;
	if (!v8_field(h, jsfunction, h->L->v[L_JSFUNC_SHARED], &sfi))
		return NULL;
	return function_of_sfi(c, h, sfi);
}

bool function_flag(const struct v8_layout *L, const struct v8_function *f, enum v8_item bit)
{
	return v8_has(L, bit) && ((f->flags >> L->v[bit]) & 1);
}
