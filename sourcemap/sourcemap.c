/* sourcemap.c — source map v3 decoding: the JSON members a map needs, its "mappings" VLQ segments
 * (every field and every running total range-checked, every index checked against its list) and
 * index maps' sections, into one table sorted stably by generated position. */
#include "sourcemap.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "json.h"
#include "vlq.h"

void sourcemap_init(struct sourcemap *m)
{
	memset(m, 0, sizeof(*m));
	sb_init(&m->sources.buf);
	sb_init(&m->names.buf);
}

static void strings_free(struct sm_strings *s)
{
	sb_free(&s->buf);
	free(s->off);
	memset(s, 0, sizeof(*s));
	sb_init(&s->buf);
}

void sourcemap_free(struct sourcemap *m)
{
	free(m->e);
	strings_free(&m->sources);
	strings_free(&m->names);
	sourcemap_init(m);
}

const char *sm_string(const struct sm_strings *s, uint32_t i)
{
	return i < s->n ? s->buf.s + s->off[i] : NULL;
}

size_t sourcemap_bytes(const struct sourcemap *m)
{
	return m->cap * sizeof(*m->e) + m->sources.buf.cap + m->names.buf.cap +
	       (m->sources.cap + m->names.cap) * sizeof(uint32_t);
}

/* Where one (sub)map's entries go: the offsets of its section and its lists' first indices. */
struct section_base {
	uint32_t line, col;
	uint32_t first_source, first_name;
};

struct parse {
	struct sourcemap *m;
	const char *why;
};

static bool bad(struct parse *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return false;
}

/* A JSON array of strings (null allowed: kept as ""). */
static bool read_strings(struct parse *ps, struct json *j, struct sm_strings *s)
{
	if (!json_enter(j, '['))
		return false;
	bool first = true;
	while (json_more(j, ']', &first)) {
		if (s->n >= SM_MAX_STRINGS)
			return bad(ps, "too many sources or names");
		if (s->buf.len > SM_MAX_STRING_BYTES)
			return bad(ps, "sources or names too large");
		XGROW(s->off, s->cap, s->n + 1);
		s->off[s->n++] = (uint32_t)s->buf.len;
		if (json_peek(j) == 'n') {
			if (!json_skip(j))
				return false;
		} else {
			if (!json_read_string(j, &s->buf))
				return false;
		}
		sb_addn(&s->buf, "", 1); /* the terminator (strbuf keeps one more after it) */
	}
	return !j->err;
}

static bool is_sep(const char *p, const char *end)
{
	return p >= end || *p == ',' || *p == ';';
}

/* Add a running total and a delta, staying within 0..INT32_MAX. */
static bool step(int64_t *total, int32_t delta)
{
	*total += delta;
	return *total >= 0 && *total <= INT32_MAX;
}

static bool decode_mappings(struct parse *ps, const char *p, const char *end,
			    const struct section_base *base, uint32_t nsources, uint32_t nnames)
{
	struct sourcemap *m = ps->m;
	int64_t line = 0, col = 0, src = 0, oline = 0, ocol = 0, name = 0;
	while (p < end) {
		if (*p == ';') {
			line++;
			col = 0;
			p++;
			continue;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		int32_t d;
		if (!vlq_decode(&p, end, &d))
			return bad(ps, "bad VLQ in mappings");
		if (!step(&col, d))
			return bad(ps, "generated column out of range");
		struct sm_entry e = {.src = SM_NONE, .name = SM_NONE};
		int64_t gl = line + base->line, gc = col + (line == 0 ? base->col : 0);
		if (gl > INT32_MAX || gc > INT32_MAX)
			return bad(ps, "generated position out of range");
		e.gen_line = (uint32_t)gl;
		e.gen_col = (uint32_t)gc;
		if (!is_sep(p, end)) {
			int32_t ds, dl, dc;
			if (!vlq_decode(&p, end, &ds) || is_sep(p, end) || !vlq_decode(&p, end, &dl) ||
			    is_sep(p, end) || !vlq_decode(&p, end, &dc))
				return bad(ps, "bad VLQ in mappings (a segment needs 1, 4 or 5 fields)");
			if (!step(&src, ds) || !step(&oline, dl) || !step(&ocol, dc))
				return bad(ps, "original position or source index out of range");
			if (src >= nsources)
				return bad(ps, "source index out of range");
			e.src = base->first_source + (uint32_t)src;
			e.orig_line = (uint32_t)oline;
			e.orig_col = (uint32_t)ocol;
			if (!is_sep(p, end)) {
				int32_t dn;
				if (!vlq_decode(&p, end, &dn))
					return bad(ps, "bad VLQ in mappings");
				if (!step(&name, dn) || name >= nnames)
					return bad(ps, "name index out of range");
				e.name = base->first_name + (uint32_t)name;
				if (!is_sep(p, end))
					return bad(ps, "a segment has more than 5 fields");
			}
		}
		if (m->n >= SM_MAX_ENTRIES)
			return bad(ps, "too many mappings");
		XGROW(m->e, m->cap, m->n + 1);
		m->e[m->n++] = e;
	}
	return true;
}

static bool parse_map(struct parse *ps, struct json *j, const struct section_base *at, int depth);

/* "sections": [{"offset": {"line": L, "column": C}, "map": {...}}, ...] */
static bool parse_sections(struct parse *ps, struct json *j, const struct section_base *at,
			   int depth)
{
	if (depth >= SM_MAX_SECTION_DEPTH)
		return bad(ps, "index maps nested too deeply");
	struct strbuf key;
	sb_init(&key);
	bool ok = json_enter(j, '[');
	bool first = true;
	while (ok && json_more(j, ']', &first)) {
		struct section_base sub = *at;
		bool have_offset = false, have_map = false, firstm = true;
		ok = json_enter(j, '{');
		while (ok && json_more(j, '}', &firstm)) {
			ok = json_key(j, &key);
			if (!ok)
				break;
			if (strcmp(key.s, "offset") == 0) {
				int64_t l = -1, c = -1;
				bool firsto = true;
				ok = json_enter(j, '{');
				while (ok && json_more(j, '}', &firsto)) {
					ok = json_key(j, &key);
					if (ok && strcmp(key.s, "line") == 0)
						ok = json_int(j, &l);
					else if (ok && strcmp(key.s, "column") == 0)
						ok = json_int(j, &c);
					else if (ok)
						ok = json_skip(j);
				}
				ok = ok && !j->err;
				if (ok && (l < 0 || c < 0 || l + at->line > INT32_MAX || c > INT32_MAX))
					ok = bad(ps, "bad section offset");
				if (ok) {
					/* a section's offset is within its parent's coordinates */
					sub.col = l == 0 ? at->col + (uint32_t)c : (uint32_t)c;
					sub.line = at->line + (uint32_t)l;
					have_offset = true;
				}
			} else if (strcmp(key.s, "map") == 0) {
				if (!have_offset) {
					ok = bad(ps, "a section's map before its offset");
					break;
				}
				sub.first_source = (uint32_t)ps->m->sources.n;
				sub.first_name = (uint32_t)ps->m->names.n;
				ok = parse_map(ps, j, &sub, depth + 1);
				have_map = true;
			} else if (strcmp(key.s, "url") == 0) {
				ok = bad(ps, "sections with a url are not supported");
			} else {
				ok = json_skip(j);
			}
		}
		ok = ok && !j->err;
		if (ok && !have_map)
			ok = bad(ps, "a section without a map");
	}
	sb_free(&key);
	return ok && !j->err;
}

/* Prefix the strings [from, n) — the last ones added — with root (Node: sourceRoot + source);
 * false when that would make them larger than SM_MAX_STRING_BYTES. */
static bool prefix_last(struct sm_strings *s, size_t from, const char *root)
{
	size_t rlen = strlen(root);
	if (!rlen || from >= s->n)
		return true;
	if (rlen > SM_MAX_STRING_BYTES || s->n - from > (SM_MAX_STRING_BYTES - s->buf.len) / rlen)
		return false;
	size_t at = s->off[from];
	struct strbuf tail;
	sb_init(&tail);
	sb_addn(&tail, s->buf.s + at, s->buf.len - at);
	s->buf.len = at;
	for (size_t i = from; i < s->n; i++) {
		const char *str = tail.s + (s->off[i] - at);
		s->off[i] = (uint32_t)s->buf.len;
		if (*str) /* a null source stays empty */
			sb_add(&s->buf, root);
		sb_add(&s->buf, str);
		sb_addn(&s->buf, "", 1);
	}
	sb_free(&tail);
	return true;
}

static bool parse_map(struct parse *ps, struct json *j, const struct section_base *at, int depth)
{
	struct sourcemap *m = ps->m;
	struct strbuf key, root, mappings;
	sb_init(&key);
	sb_init(&root);
	sb_init(&mappings);
	size_t sources_before = m->sources.n, names_before = m->names.n;
	bool have_version = false, have_mappings = false, have_sources = false, have_sections = false;
	bool names_read = false, first = true;
	bool ok = json_enter(j, '{');
	while (ok && json_more(j, '}', &first)) {
		ok = json_key(j, &key);
		if (!ok)
			break;
		if (strcmp(key.s, "sourceRoot") == 0) {
			sb_reset(&root);
			ok = json_peek(j) == 'n' ? json_skip(j) : json_read_string(j, &root);
		} else if (strcmp(key.s, "version") == 0) {
			int64_t v;
			ok = json_int(j, &v) && (v == 3 || bad(ps, "not a version 3 source map"));
			have_version = true;
		} else if (strcmp(key.s, "sources") == 0 && !have_sources) {
			ok = read_strings(ps, j, &m->sources);
			have_sources = true;
		} else if (strcmp(key.s, "names") == 0 && !names_read) {
			ok = read_strings(ps, j, &m->names);
			names_read = true;
		} else if (strcmp(key.s, "mappings") == 0) {
			sb_reset(&mappings);
			ok = json_read_string(j, &mappings);
			have_mappings = true;
		} else if (strcmp(key.s, "sections") == 0 && !have_sections) {
			have_sections = true;
			ok = parse_sections(ps, j, at, depth);
		} else {
			ok = json_skip(j);
		}
	}
	ok = ok && !j->err;
	if (ok && have_sources && !have_sections &&
	    !prefix_last(&m->sources, sources_before, root.len ? root.s : ""))
		ok = bad(ps, "sources too large with their sourceRoot");
	if (ok && !have_version)
		ok = bad(ps, "no \"version\"");
	if (ok && have_sections && (have_mappings || have_sources))
		ok = bad(ps, "an index map with its own mappings");
	if (ok && !have_sections && !(have_mappings && have_sources))
		ok = bad(ps, "no \"sources\" or \"mappings\"");
	if (ok && have_mappings) {
		struct section_base base = *at;
		base.first_source = (uint32_t)sources_before;
		base.first_name = (uint32_t)names_before;
		const char *text = mappings.len ? mappings.s : "";
		ok = decode_mappings(ps, text, text + mappings.len, &base,
				     (uint32_t)(m->sources.n - sources_before),
				     names_read ? (uint32_t)(m->names.n - names_before) : 0);
	}
	if (!ok && j->err)
		bad(ps, j->err);
	sb_free(&key);
	sb_free(&root);
	sb_free(&mappings);
	return ok;
}

static int cmp_pos(const struct sm_entry *a, const struct sm_entry *b)
{
	if (a->gen_line != b->gen_line)
		return a->gen_line < b->gen_line ? -1 : 1;
	if (a->gen_col != b->gen_col)
		return a->gen_col < b->gen_col ? -1 : 1;
	return 0;
}

/* Stable merge sort (equal positions keep their order, as in Node's sort). */
static void sort_stable(struct sm_entry *e, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = cmp_pos(&e[i - 1], &e[i]) <= 0;
	if (sorted)
		return;
	struct sm_entry *tmp = xmalloc(n * sizeof(*tmp));
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				tmp[k++] = cmp_pos(&e[b], &e[a]) < 0 ? e[b++] : e[a++];
			while (a < mid)
				tmp[k++] = e[a++];
			while (b < hi)
				tmp[k++] = e[b++];
		}
		memcpy(e, tmp, n * sizeof(*e));
		if (w > n / 2)
			break;
	}
	free(tmp);
}

bool sourcemap_parse(struct sourcemap *m, const char *buf, size_t len, const char **why)
{
	sourcemap_init(m);
	struct json j;
	json_init(&j, buf, len);
	struct parse ps = {.m = m};
	struct section_base top = {0};
	bool ok = parse_map(&ps, &j, &top, 0);
	if (ok && !json_at_end(&j))
		ok = bad(&ps, "text after the source map");
	if (!ok) {
		*why = ps.why ? ps.why : "malformed JSON";
		sourcemap_free(m);
		return false;
	}
	sort_stable(m->e, m->n);
	if (m->n && m->n < m->cap) { /* kept for the script's lifetime: no slack */
		m->e = xrealloc(m->e, m->n * sizeof(*m->e));
		m->cap = m->n;
	}
	return true;
}

const struct sm_entry *sourcemap_find(const struct sourcemap *m, uint32_t line, uint32_t col)
{
	struct sm_entry q = {.gen_line = line, .gen_col = col};
	size_t lo = 0, hi = m->n; /* first entry after q */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_pos(&m->e[mid], &q) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &m->e[lo - 1] : NULL;
}
