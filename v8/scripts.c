/* scripts.c — Script names and line tables. */
#include "scripts.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "strings.h"

enum { MAX_SCRIPTS = 4096, MAX_LINES = 1 << 22 };

_Static_assert(SCRIPT_LINES_BUDGET >= (MAX_LINES) * sizeof(uint32_t), "one table fits the budget");

void script_cache_init(struct script_cache *c, struct intern *strings)
{
	memset(c, 0, sizeof(*c));
	pool_init(&c->entries, sizeof(struct v8_script), 256);
	u64map_init(&c->idx, 0);
	c->strings = strings;
	c->line_budget = SCRIPT_LINES_BUDGET;
}

static void drop(struct script_cache *c, struct v8_script *s)
{
	c->line_bytes -= s->nends * sizeof(*s->ends);
	free(s->ends);
	s->ends = NULL;
	s->nends = 0;
	s->scan_tries = 0;
	s->scan_skip = 0;
	s->lines_ok = false;
}

static struct v8_script *entry(struct script_cache *c, size_t i)
{
	return pool_at(&c->entries, i);
}

static void drop_all(struct script_cache *c)
{
	for (size_t i = 0; i < c->entries.n; i++)
		drop(c, entry(c, i));
}

void script_cache_free(struct script_cache *c)
{
	drop_all(c);
	pool_free(&c->entries);
	u64map_free(&c->idx);
	memset(c, 0, sizeof(*c));
}

static uint32_t intern_script_name(struct script_cache *c, const struct v8_heap *h, uint64_t name)
{
	struct strbuf b;
	sb_init(&b);
	uint32_t id;
	if (v8_is_string(h, name) && v8_string_utf8(h, name, V8_NAME_MAX_UNITS * 4, &b) && b.len)
		id = intern_n(c->strings, b.s, b.len);
	else
		id = intern_str(c->strings, "");
	sb_free(&b);
	return id;
}

/* Script.eval_from_shared when the script is eval'd code, else 0 (the slot holds wrapped
 * arguments or an SFI table in other scripts). Set when the Script is made, never changed. */
static uint64_t read_eval_from_shared(const struct v8_heap *h, uint64_t script)
{
	uint64_t sfi;
	if (!v8_has(h->L, L_SCRIPT_EVAL_FROM_SHARED) ||
	    !v8_field(h, script, h->L->v[L_SCRIPT_EVAL_FROM_SHARED], &sfi) || !v8_is(h, sfi, L_T_SFI))
		return 0;
	return sfi;
}

struct v8_script *script_get(struct script_cache *c, const struct v8_heap *h, uint64_t obj)
{
	const struct v8_layout *L = h->L;
	if (!v8_is(h, obj, L_T_SCRIPT))
		return NULL;
	uint64_t name = 0, source = 0;
	if (!v8_field(h, obj, L->v[L_SCRIPT_NAME], &name))
		return NULL;
	if (v8_has(L, L_SCRIPT_SOURCE))
		v8_field(h, obj, L->v[L_SCRIPT_SOURCE], &source);
	uint64_t k;
	if (u64map_get(&c->idx, obj, &k)) {
		struct v8_script *s = entry(c, k - 1);
		if (s->name_ptr == name && s->source_ptr == source)
			return s;
		/* the address now holds another Script (or it moved): rebuild in place */
		drop(c, s);
		s->name_ptr = name;
		s->source_ptr = source;
		s->name_id = intern_script_name(c, h, name);
		s->eval_from_shared = read_eval_from_shared(h, obj);
		c->rebuilt++;
		return s;
	}
	size_t i = pool_add(&c->entries);
	struct v8_script *s = entry(c, i);
	s->addr = obj;
	s->name_ptr = name;
	s->source_ptr = source;
	s->name_id = intern_script_name(c, h, name);
	s->eval_from_shared = read_eval_from_shared(h, obj);
	u64map_put(&c->idx, obj, i + 1);
	return s;
}

struct v8_script *script_cached(struct script_cache *c, uint64_t obj)
{
	uint64_t k;
	return u64map_get(&c->idx, obj, &k) ? entry(c, k - 1) : NULL;
}

void script_cache_begin_walk(struct script_cache *c)
{
	if (c->line_bytes >= c->line_budget) { /* the tables are rebuilt as walks need them */
		drop_all(c);
		c->budget_flushes++;
	}
	if (c->entries.n >= MAX_SCRIPTS) {
		drop_all(c);
		pool_clear(&c->entries);
		u64map_clear(&c->idx);
	}
}

static bool from_line_ends(struct v8_script *s, const struct v8_heap *h, uint64_t le)
{
	if (!v8_is_fixed_array_like(h, le))
		return false;
	int64_t n = v8_array_length(h, le);
	if (n <= 0 || n > MAX_LINES)
		return false;
	uint64_t *raw = xmalloc((size_t)n * 8);
	bool ok = v8_read_obj(h, le, h->L->v[L_FIXED_ARRAY_DATA], raw, (size_t)n * 8);
	if (ok) {
		s->ends = xmalloc((size_t)n * sizeof(*s->ends));
		for (int64_t i = 0; i < n && ok; i++) {
			ok = v8_is_smi(raw[i]) && v8_smi_value(raw[i]) >= 0 &&
			     (i == 0 || v8_smi_value(raw[i]) > (int64_t)s->ends[i - 1]);
			s->ends[i] = (uint32_t)v8_smi_value(raw[i]);
		}
		s->nends = ok ? (size_t)n : 0;
		if (!ok) {
			free(s->ends);
			s->ends = NULL;
		}
	}
	free(raw);
	return ok;
}

struct scan_ctx {
	struct v8_script *s;
	size_t cap;
	size_t pos;     /* code units seen so far */
	bool pending_cr;
};

static void add_end(struct scan_ctx *c, size_t at)
{
	if (c->s->nends >= MAX_LINES)
		return;
	XGROW(c->s->ends, c->cap, c->s->nends + 1);
	c->s->ends[c->s->nends++] = (uint32_t)at;
}

/* Any of four UTF-16 units (little-endian in a word) below 0x10 or 0x2028/0x2029: a word
 * without is no line's end (a minified bundle's megabytes pass four units at a time). */
static bool may_end_line4(uint64_t x)
{
	const uint64_t ones = 0x0001000100010001ULL, highs = 0x8000800080008000ULL;
	uint64_t sep = (x & ~ones) ^ 0x2028202820282028ULL;
	/* a lane below 0x10, a lane of sep zero (no false negatives: what passes is checked unit by
	 * unit below) */
	return ((x - 0x10 * ones) & ~x & highs) || ((sep - ones) & ~sep & highs);
}

/* The same for eight one-byte units: a byte '\n' or '\r'. */
static bool may_end_line8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t lf = x ^ (0x0a * ones), cr = x ^ (0x0d * ones);
	return ((lf - ones) & ~lf & highs) || ((cr - ones) & ~cr & highs);
}

/* V8's String::CalculateLineEnds: \n, \r (alone), U+2028 and U+2029 end lines; \r\n is one end,
 * at the \n. */
static bool scan_chunk(void *vctx, const uint8_t *d, size_t n, bool two)
{
	struct scan_ctx *c = vctx;
	for (size_t i = 0; i < n; i++, c->pos++) {
		size_t step = two ? 4 : 8;
		uint64_t word;
		while (!c->pending_cr && i + step <= n &&
		       (memcpy(&word, d + (two ? 2 * i : i), 8), !(two ? may_end_line4(word) : may_end_line8(word))))
			i += step, c->pos += step;
		if (i == n)
			break;
		uint32_t u = two ? (uint32_t)(d[2 * i] | (d[2 * i + 1] << 8)) : d[i];
		if (c->pending_cr) {
			c->pending_cr = false;
			if (u != '\n')
				add_end(c, c->pos - 1);
		}
		if (u == '\n' || u == 0x2028 || u == 0x2029)
			add_end(c, c->pos);
		else if (u == '\r')
			c->pending_cr = true;
	}
	return true;
}

static bool from_source(struct v8_script *s, const struct v8_heap *h, uint64_t src)
{
	int64_t len = v8_string_length(h, src);
	if (len < 0 || len > V8_SOURCE_MAX_UNITS)
		return false;
	struct scan_ctx c = {.s = s};
	if (!v8_string_walk(h, src, 0, (size_t)len, scan_chunk, &c)) {
		free(s->ends);
		s->ends = NULL;
		s->nends = 0;
		return false;
	}
	if (c.pending_cr)
		add_end(&c, c.pos - 1);
	/* the last line ends at the source's end when no terminator closes it */
	if (s->nends == 0 || s->ends[s->nends - 1] + 1 < (uint64_t)len)
		add_end(&c, (size_t)len);
	return true;
}

bool line_table_lookup(const uint32_t *ends, size_t n, int64_t pos, int32_t *line, int32_t *col)
{
	if (pos < 0 || n == 0)
		return false;
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first end >= pos */
		size_t mid = lo + (hi - lo) / 2;
		if ((int64_t)ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return false;
	int64_t line_start = lo == 0 ? 0 : (int64_t)ends[lo - 1] + 1;
	*line = (int32_t)lo + 1;
	*col = (int32_t)(pos - line_start) + 1;
	return true;
}

bool script_position(struct script_cache *c, const struct v8_heap *h, struct v8_script *s,
		     int64_t pos, int32_t *line, int32_t *col)
{
	const struct v8_layout *L = h->L;
	if (!s->lines_ok && c->line_bytes >= c->line_budget) {
		c->budget_refusals++; /* no new table until the next walk empties the cache */
		return false;
	}
	if (!s->lines_ok) {
		/* a table that V8 built later is picked up; a failed scan is retried next time */
		uint64_t le = 0;
		if (v8_has(L, L_SCRIPT_LINE_ENDS) && v8_field(h, s->addr, L->v[L_SCRIPT_LINE_ENDS], &le) &&
		    from_line_ends(s, h, le)) {
			s->lines_ok = true;
			s->from_line_ends = true;
		} else {
			/* the source a failed scan read may have moved (a GC) or been set since: read the
			 * field again, and a new source gets its own tries */
			uint64_t src = s->source_ptr;
			if (v8_has(L, L_SCRIPT_SOURCE) && v8_field(h, s->addr, L->v[L_SCRIPT_SOURCE], &src) &&
			    src != s->source_ptr) {
				s->source_ptr = src;
				s->scan_tries = 0;
				s->scan_skip = 0;
			}
		}
		/* a scan that failed is tried again after 2, 4, … 4,096 more lookups: a failure that
		 * passes (seen in launch mode, the first lookups of a just-loaded script) is not kept
		 * for the run, and one that lasts costs little */
		if (!s->lines_ok && s->source_ptr) {
			if (s->scan_skip) {
				s->scan_skip--;
			} else if (from_source(s, h, s->source_ptr)) {
				s->lines_ok = true;
				c->scanned++;
			} else {
				if (s->scan_tries < SCRIPT_SCAN_BACKOFF_MAX)
					s->scan_tries++;
				s->scan_skip = (uint16_t)(1u << s->scan_tries);
			}
		}
		if (s->lines_ok)
			c->line_bytes += s->nends * sizeof(*s->ends);
	}
	return s->lines_ok && line_table_lookup(s->ends, s->nends, pos, line, col);
}
