/* script_text.c — reading a source's tail. */
#include "script_text.h"

#include <string.h>

#include "../v8/strings.h"
#include "locate.h"

enum { FIRST_TAIL_UNITS = 64 << 10 };

static bool to_utf8(void *ctx, const uint8_t *d, size_t n, bool two)
{
	struct strbuf *out = ctx;
	for (size_t i = 0; i < n; i++) {
		uint32_t u = two ? (uint32_t)(d[2 * i] | d[2 * i + 1] << 8) : d[i];
		if (u < 0x80) {
			sb_addc(out, (char)u);
		} else {
			char b[4];
			sb_addn(out, b, utf8_put(u, b));
		}
	}
	return true;
}

/* Did the last non-blank line of the text start inside it (or is the text the whole source)? */
static bool last_line_inside(const struct strbuf *t)
{
	size_t e = t->len;
	while (e > 0 && (t->s[e - 1] == ' ' || t->s[e - 1] == '\t' || t->s[e - 1] == '\n' ||
			 t->s[e - 1] == '\r'))
		e--;
	return e == 0 || memchr(t->s, '\n', e) != NULL || memchr(t->s, '\r', e) != NULL;
}

bool sm_source_tail(const struct v8_heap *h, uint64_t source, size_t max_units, struct strbuf *out)
{
	int64_t len = v8_string_length(h, source);
	if (len < 0)
		return false;
	for (size_t want = FIRST_TAIL_UNITS;; want *= 2) {
		size_t take = want < (size_t)len ? want : (size_t)len;
		if (take > max_units)
			take = max_units;
		sb_reset(out);
		if (!v8_string_walk(h, source, (size_t)len - take, (size_t)len, to_utf8, out))
			return false;
		const char *url;
		size_t ulen;
		if (take == (size_t)len || take == max_units || sm_find_comment(out->s, out->len, &url, &ulen) ||
		    last_line_inside(out))
			return true;
	}
}
