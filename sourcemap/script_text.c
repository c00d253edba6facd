/* script_text.c — reading a source's tail. */
#include "script_text.h"

#include <string.h>

#include "../v8/strings.h"
#include "locate.h"

enum { FIRST_TAIL_UNITS = 64 << 10 };

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
	/* each doubling reads the tail again into the one buffer: a minified bundle's one line of
	 * megabytes is read ~twice over, at memory speed (v8_string_utf8_range), where putting each
	 * new part in front of the last would hold the text ~1.5 times at once */
	for (size_t want = FIRST_TAIL_UNITS;; want *= 2) {
		size_t take = want < (size_t)len ? want : (size_t)len;
		if (take > max_units)
			take = max_units;
		sb_reset(out);
		if (!v8_string_utf8_range(h, source, (size_t)len - take, (size_t)len, out))
			return false;
		const char *url;
		size_t ulen;
		if (take == (size_t)len || take == max_units || sm_find_comment(out->s, out->len, &url, &ulen) ||
		    last_line_inside(out))
			return true;
	}
}
