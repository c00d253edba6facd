/* strings.c — V8 string decoding with an explicit work stack. */
#include "strings.h"

#include <string.h>

/* A remote read costs a syscall whatever its size: long strings (a script's source, scanned once
 * for its line ends) are read 64 KiB at a time. */
enum { MAX_SEGMENTS = 512, MAX_STEPS = 100000, CHUNK = 64 << 10 };

struct seg {
	uint64_t str;
	size_t from, to; /* code units within str */
};

int64_t v8_string_length(const struct v8_heap *h, uint64_t str)
{
	int32_t len;
	if (!v8_is_string(h, str) || !v8_field_i32(h, str, h->L->v[L_STRING_LENGTH], &len) || len < 0)
		return -1;
	return len;
}

static bool emit_memory(const struct v8_heap *h, uint64_t addr, size_t from, size_t to, bool two,
			v8_chunk_cb cb, void *ctx)
{
	uint8_t buf[CHUNK];
	size_t w = two ? 2 : 1;
	size_t per = CHUNK / w;
	for (size_t i = from; i < to; i += per) {
		size_t n = to - i < per ? to - i : per;
		if (!mem_read(h->mem, addr + i * w, buf, n * w))
			return false;
		if (!cb(ctx, buf, n, two))
			return true;
	}
	return true;
}

bool v8_string_walk(const struct v8_heap *h, uint64_t str, size_t from, size_t to, v8_chunk_cb cb,
		    void *ctx)
{
	const struct v8_layout *L = h->L;
	struct seg stack[MAX_SEGMENTS];
	int sp = 0;
	stack[sp++] = (struct seg){str, from, to};
	for (int steps = 0; sp > 0; steps++) {
		if (steps > MAX_STEPS)
			return false;
		struct seg s = stack[--sp];
		if (s.from >= s.to)
			continue;
		int t = v8_type(h, s.str);
		if (t < 0 || t >= L->v[L_FIRST_NONSTRING_TYPE])
			return false;
		int32_t len;
		if (!v8_field_i32(h, s.str, L->v[L_STRING_LENGTH], &len) || len < 0 ||
		    s.to > (size_t)len)
			return false;
		int rep = t & L->v[L_STR_REP_MASK];
		bool two = (t & L->v[L_STR_ENC_MASK]) != L->v[L_STR_ONE_BYTE_TAG];
		uint64_t base = s.str - 1;
		if (rep == L->v[L_STR_SEQ_TAG]) {
			int32_t off = two ? L->v[L_SEQ_TWO_CHARS] : L->v[L_SEQ_ONE_CHARS];
			if (!emit_memory(h, base + off, s.from, s.to, two, cb, ctx))
				return false;
		} else if (rep == L->v[L_STR_CONS_TAG]) {
			uint64_t first, second;
			int64_t flen;
			if (!v8_field(h, s.str, L->v[L_CONS_FIRST], &first) ||
			    !v8_field(h, s.str, L->v[L_CONS_SECOND], &second) ||
			    (flen = v8_string_length(h, first)) < 0)
				return false;
			if (sp + 2 > MAX_SEGMENTS)
				return false;
			size_t fl = (size_t)flen;
			if (s.to > fl) /* the part in `second`, processed after `first` */
				stack[sp++] = (struct seg){second, s.from > fl ? s.from - fl : 0, s.to - fl};
			if (s.from < fl)
				stack[sp++] = (struct seg){first, s.from, s.to < fl ? s.to : fl};
		} else if (rep == L->v[L_STR_THIN_TAG]) {
			uint64_t actual;
			if (!v8_field(h, s.str, L->v[L_THIN_ACTUAL], &actual))
				return false;
			stack[sp++] = (struct seg){actual, s.from, s.to};
		} else if (rep == L->v[L_STR_SLICED_TAG]) {
			uint64_t parent, off;
			if (!v8_field(h, s.str, L->v[L_SLICED_PARENT], &parent) ||
			    !v8_field(h, s.str, L->v[L_SLICED_OFFSET], &off) || !v8_is_smi(off) ||
			    v8_smi_value(off) < 0)
				return false;
			size_t o = (size_t)v8_smi_value(off);
			int64_t plen = v8_string_length(h, parent);
			if (plen < 0 || o + s.to > (size_t)plen)
				return false; /* bounds-check the slice against its parent */
			stack[sp++] = (struct seg){parent, s.from + o, s.to + o};
		} else if (rep == L->v[L_STR_EXT_TAG]) {
			if (t & L->v[L_STR_UNCACHED_EXT_MASK])
				return false; /* data only reachable through a C++ virtual call */
			uint64_t data;
			if (!v8_field(h, s.str, L->v[L_EXT_DATA_CACHE], &data) || data == 0)
				return false;
			if (!emit_memory(h, data, s.from, s.to, two, cb, ctx))
				return false;
		} else {
			return false;
		}
	}
	return true;
}

size_t utf8_put(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

struct utf8_ctx {
	struct strbuf *out;
	uint32_t pending_high; /* a high surrogate waiting for its pair (may span chunks) */
};

/* A chunk of one-byte (Latin-1) units: ASCII runs copied whole, the rest two bytes each (a
 * script's source is read this way: megabytes, once). */
static void latin1_chunk(struct strbuf *out, const uint8_t *d, size_t n)
{
	char *w = sb_room(out, 2 * n), *start = w;
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && d[run] < 0x80)
			run++;
		memcpy(w, d + i, run - i);
		w += run - i;
		for (i = run; i < n && d[i] >= 0x80; i++) {
			*w++ = (char)(0xc0 | (d[i] >> 6));
			*w++ = (char)(0x80 | (d[i] & 0x3f));
		}
	}
	out->len += (size_t)(w - start);
	out->s[out->len] = 0;
}

static bool utf8_chunk(void *vctx, const uint8_t *d, size_t n, bool two)
{
	struct utf8_ctx *c = vctx;
	if (!two && !c->pending_high) {
		latin1_chunk(c->out, d, n);
		return true;
	}
	/* at most 3 bytes a unit (a pair: 4 for 2; a pending high surrogate's U+FFFD: 3 more) */
	char *w = sb_room(c->out, 3 * n + 3), *start = w;
	for (size_t i = 0; i < n; i++) {
		/* most of a script's source: four ASCII units at a time */
		uint64_t four;
		while (two && !c->pending_high && i + 4 <= n &&
		       (memcpy(&four, d + 2 * i, 8), !(four & 0xff80ff80ff80ff80ULL))) {
			w[0] = (char)d[2 * i], w[1] = (char)d[2 * i + 2];
			w[2] = (char)d[2 * i + 4], w[3] = (char)d[2 * i + 6];
			w += 4, i += 4;
		}
		if (i == n)
			break;
		uint32_t u = two ? (uint32_t)(d[2 * i] | (d[2 * i + 1] << 8)) : d[i];
		if (c->pending_high) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				w += utf8_put(0x10000 + ((c->pending_high - 0xd800) << 10) + (u - 0xdc00), w);
				c->pending_high = 0;
				continue;
			}
			w += utf8_put(0xfffd, w);
			c->pending_high = 0;
		}
		if (u >= 0xd800 && u <= 0xdbff)
			c->pending_high = u;
		else
			w += utf8_put(u >= 0xdc00 && u <= 0xdfff ? 0xfffd : u, w);
	}
	c->out->len += (size_t)(w - start);
	c->out->s[c->out->len] = 0;
	return true;
}

bool v8_string_utf8_range(const struct v8_heap *h, uint64_t str, size_t from, size_t to,
			  struct strbuf *out)
{
	size_t mark = out->len;
	struct utf8_ctx c = {.out = out};
	if (!v8_string_walk(h, str, from, to, utf8_chunk, &c)) {
		out->len = mark;
		if (out->s)
			out->s[mark] = 0;
		return false;
	}
	if (c.pending_high) {
		char b[4];
		sb_addn(out, b, utf8_put(0xfffd, b));
	}
	return true;
}

bool v8_string_utf8(const struct v8_heap *h, uint64_t str, size_t max_units, struct strbuf *out)
{
	int64_t len = v8_string_length(h, str);
	if (len < 0)
		return false;
	return v8_string_utf8_range(h, str, 0, (size_t)len < max_units ? (size_t)len : max_units, out);
}
