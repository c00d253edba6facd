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
	size_t have = 0; /* units of the tail in out, read from the end */
	struct strbuf head;
	sb_init(&head);
	sb_reset(out);
	for (size_t want = FIRST_TAIL_UNITS;; want *= 2) {
		size_t take = want < (size_t)len ? want : (size_t)len;
		if (take > max_units)
			take = max_units;
		/* only the units before what was read already are read and put in front of it (a
		 * minified bundle's one line of megabytes is read once, not once a doubling); a
		 * surrogate pair split by the boundary reads as two U+FFFD (the comment is ASCII) */
		sb_reset(&head);
		if (!v8_string_utf8_range(h, source, (size_t)len - take, (size_t)len - have, &head)) {
			sb_free(&head);
			return false;
		}
		sb_addn(&head, out->s ? out->s : "", out->len);
		struct strbuf t = *out;
		*out = head;
		head = t;
		have = take;
		const char *url;
		size_t ulen;
		if (take == (size_t)len || take == max_units || sm_find_comment(out->s, out->len, &url, &ulen) ||
		    last_line_inside(out)) {
			sb_free(&head);
			return true;
		}
	}
}
