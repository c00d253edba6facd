/* locate.c — finding and resolving source map URLs (a small subset of URL resolution: file paths,
 * file: URLs, dot segments, percent escapes). */
#include "locate.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "json.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

enum comment_kind { NOT_A_COMMENT, LINE_COMMENT, BLOCK_COMMENT };

/* The comment that starts just before at (the position of "sourceMappingURL="), if it is one:
 * "//# " and "/" "*# " (Node), "//@ " (the older form), with at least one space before the key. */
static enum comment_kind comment_before(const char *text, const char *at)
{
	const char *p = at;
	if (p == text || !is_space(p[-1]))
		return NOT_A_COMMENT;
	while (p > text && is_space(p[-1]))
		p--;
	if (p - text < 3 || p[-3] != '/')
		return NOT_A_COMMENT;
	if (p[-1] == '#' && (p[-2] == '/' || p[-2] == '*'))
		return p[-2] == '/' ? LINE_COMMENT : BLOCK_COMMENT;
	return p[-1] == '@' && p[-2] == '/' ? LINE_COMMENT : NOT_A_COMMENT;
}

/* Does the comment end right after its URL [u, e)? As V8's scanner takes a magic comment: a URL
 * without quotes, then only spaces to the end of the line (or to the block comment's end). The
 * text "//# sourceMappingURL=" inside a string of minified code fails it: code follows on the
 * line. */
static bool ends_after_url(const char *u, const char *e, const char *end, enum comment_kind k)
{
	for (const char *q = u; q < e; q++)
		if (*q == '"' || *q == '\'' || *q == '`')
			return false;
	while (e < end && (*e == ' ' || *e == '\t' || *e == '\f' || *e == '\v'))
		e++;
	if (e == end || *e == '\n' || *e == '\r')
		return true;
	return k == BLOCK_COMMENT && end - e >= 2 && e[0] == '*' && e[1] == '/';
}

bool sm_find_comment(const char *text, size_t len, const char **url, size_t *ulen)
{
	static const char key[] = "sourceMappingURL=";
	const size_t klen = sizeof(key) - 1;
	if (len < klen)
		return false; /* (and text may be NULL: an empty buffer) */
	bool found = false;
	/* every occurrence, front to back (memmem: a bundle's megabytes are searched at memory
	 * speed), the last that is a comment's kept */
	for (const char *at = text, *end = text + len;
	     (at = memmem(at, (size_t)(end - at), key, klen)) != NULL; at++) {
		enum comment_kind k = comment_before(text, at);
		if (k == NOT_A_COMMENT)
			continue;
		const char *u = at + klen, *e = u;
		while (e < end && !is_space(*e))
			e++;
		if (k == BLOCK_COMMENT && e - u >= 2 && e[-2] == '*' && e[-1] == '/')
			e -= 2; /* "/" "*# sourceMappingURL=b.map*" "/" */
		if (e == u || !ends_after_url(u, e, end, k))
			continue;
		*url = u;
		*ulen = (size_t)(e - u);
		found = true;
		at = e - 1; /* the next key is after this URL */
	}
	return found;
}

static bool has_scheme(const char *s, size_t n, size_t *colon)
{
	if (n == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (s[i] == ':') {
			*colon = i;
			return i > 1; /* "C:" is a drive letter, not a scheme */
		}
		if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
			return false;
	}
	return false;
}

/* Normalize an absolute path in place: "." and ".." segments, repeated '/'; ".." stops at "/". */
static void remove_dots(struct strbuf *p)
{
	if (p->len == 0) { /* "//host" with no path, "file://" */
		sb_add(p, "/");
		return;
	}
	char *s = p->s;
	size_t w = 0;
	for (size_t r = 0; r < p->len;) {
		while (r < p->len && s[r] == '/')
			r++;
		size_t seg = r;
		while (r < p->len && s[r] != '/')
			r++;
		size_t n = r - seg;
		bool trailing = r >= p->len;
		if (n == 1 && s[seg] == '.') {
			if (trailing)
				s[w++] = '/';
			continue;
		}
		if (n == 2 && s[seg] == '.' && s[seg + 1] == '.') {
			while (w > 0 && s[--w] != '/')
				;
			if (trailing)
				s[w++] = '/';
			continue;
		}
		if (n == 0)
			continue;
		s[w++] = '/';
		memmove(s + w, s + seg, n);
		w += n;
	}
	if (w == 0)
		s[w++] = '/';
	p->len = w;
	s[w] = 0;
}

/* A URL's path (already absolute, without scheme/host) into a file path: query and fragment
 * dropped, dot segments removed, percent escapes decoded. */
static void url_path_to_file(const char *s, size_t n, struct strbuf *out)
{
	struct strbuf tmp;
	sb_init(&tmp);
	for (size_t i = 0; i < n && s[i] != '?' && s[i] != '#'; i++)
		sb_addc(&tmp, s[i] == '\\' ? '/' : s[i]);
	remove_dots(&tmp);
	for (size_t i = 0; i < tmp.len; i++) {
		int hi, lo;
		if (tmp.s[i] == '%' && i + 2 < tmp.len &&
		    (hi = hex_digit(tmp.s[i + 1])) >= 0 && (lo = hex_digit(tmp.s[i + 2])) >= 0) {
			sb_addc(out, (char)(hi << 4 | lo));
			i += 2;
		} else {
			sb_addc(out, tmp.s[i]);
		}
	}
	sb_free(&tmp);
}

bool sm_script_path(const char *name, struct strbuf *path)
{
	sb_reset(path);
	if (name[0] == '/') {
		sb_add(path, name);
		return true;
	}
	if (strncmp(name, "file://", 7) == 0) {
		const char *p = strchr(name + 7, '/');
		if (!p)
			return false;
		url_path_to_file(p, strlen(p), path);
		return true;
	}
	return false;
}

/* Resolve ref against the absolute file path base into an absolute file path. false for a URL
 * of another scheme (http:, webpack:…). */
static bool resolve_path(const char *base, const char *ref, size_t n, struct strbuf *out)
{
	size_t colon;
	struct strbuf joined;
	sb_init(&joined);
	bool ok = true;
	if (has_scheme(ref, n, &colon)) {
		if (colon == 4 && strncasecmp(ref, "file", 4) == 0) {
			const char *p = ref + 5, *end = ref + n;
			if (end - p >= 2 && p[0] == '/' && p[1] == '/') { /* skip the host */
				p += 2;
				while (p < end && *p != '/')
					p++;
			}
			if (p < end && *p != '/')
				sb_addc(&joined, '/');
			sb_addn(&joined, p, (size_t)(end - p));
		} else {
			ok = false;
		}
	} else if (n >= 2 && ref[0] == '/' && ref[1] == '/') { /* scheme-relative: //host/path */
		const char *p = ref + 2, *end = ref + n;
		while (p < end && *p != '/')
			p++;
		sb_addn(&joined, p, (size_t)(end - p));
	} else if (n >= 1 && ref[0] == '/') {
		sb_addn(&joined, ref, n);
	} else {
		const char *slash = strrchr(base, '/');
		sb_addn(&joined, base, slash ? (size_t)(slash - base) : 0);
		sb_addc(&joined, '/');
		sb_addn(&joined, ref, n);
	}
	if (ok)
		url_path_to_file(joined.s, joined.len, out);
	sb_free(&joined);
	return ok;
}

enum sm_where sm_resolve_map_url(const char *script_name, const char *url, size_t ulen,
				 struct strbuf *path, const char **why)
{
	sb_reset(path);
	if (ulen >= 5 && strncasecmp(url, "data:", 5) == 0)
		return SM_AT_INLINE;
	struct strbuf base;
	sb_init(&base);
	enum sm_where w = SM_AT_FILE;
	if (!sm_script_path(script_name, &base)) {
		*why = "the script has no file path to resolve its map's URL against";
		w = SM_AT_NONE;
	} else if (!resolve_path(base.s, url, ulen, path)) {
		*why = "the map's URL has a scheme other than file: or data:";
		w = SM_AT_NONE;
	}
	sb_free(&base);
	return w;
}

void sm_resolve_source(const char *base_path, const char *source, struct strbuf *out)
{
	sb_reset(out);
	size_t n = strlen(source);
	if (source[0] == '/') { /* Node: an absolute path stays a path (dots removed) */
		sb_add(out, source);
		remove_dots(out);
		return;
	}
	if (!base_path || !resolve_path(base_path, source, n, out)) {
		sb_reset(out);
		sb_add(out, source);
	}
}
