/* http_response.c — the incremental HTTP/1.x response reader (http_response.h). */
#include "http_response.h"

#include <string.h>
#include <strings.h>

#include "../util/hex.h"

enum { CHUNK_MAX = 1 << 30 }; /* a chunk-size above this is refused before any arithmetic */

void http_response_init(struct http_response *r, struct strbuf *body, size_t body_max)
{
	memset(r, 0, sizeof(*r));
	r->content_length = -1;
	r->body = body;
	r->body_max = body_max;
	r->st = HS_STATUS;
	sb_reset(body);
}

static enum http_result fail(struct http_response *r, const char *why)
{
	r->st = HS_FAILED;
	r->error = why;
	return r->result = HTTP_BAD;
}

static enum http_result too_big(struct http_response *r)
{
	r->st = HS_FAILED;
	return r->result = HTTP_TOO_BIG;
}

static enum http_result done(struct http_response *r)
{
	r->st = HS_DONE;
	return r->result = HTTP_DONE;
}

static bool body_add(struct http_response *r, const char *p, size_t n)
{
	if (n > r->body_max - r->body->len)
		return false;
	sb_addn(r->body, p, n);
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* RFC 9110 token characters (a header's name) */
static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && !strncasecmp(name, want, len);
}

/* "HTTP/1.x NNN[ reason]" */
static enum http_result status_line(struct http_response *r, const char *s, size_t len)
{
	if (len < 12 || memcmp(s, "HTTP/1.", 7) || !is_digit(s[7]) || s[8] != ' ' || !is_digit(s[9]) ||
	    !is_digit(s[10]) || !is_digit(s[11]) || (len > 12 && s[12] != ' '))
		return fail(r, "the answer does not start with an HTTP/1.x status line");
	r->minor = s[7] - '0';
	r->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (r->status < 100 || r->status > 599)
		return fail(r, "the answer's status code is not 100-599");
	r->st = HS_HEADER;
	return HTTP_MORE;
}

/* Call fn on each comma-separated token of v[0..len), trimmed. */
static void each_token(const char *v, size_t len, void (*fn)(struct http_response *, const char *,
							  size_t),
		       struct http_response *r)
{
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && v[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && is_ows(v[a]))
			a++;
		while (b > a && is_ows(v[b - 1]))
			b--;
		if (b > a)
			fn(r, v + a, b - a);
		i = j + 1;
	}
}

static void connection_token(struct http_response *r, const char *t, size_t len)
{
	if (name_is(t, len, "close"))
		r->conn_close = true;
	else if (name_is(t, len, "keep-alive"))
		r->conn_keep = true;
}

static enum http_result header_value(struct http_response *r, const char *name, size_t nlen,
				     const char *v, size_t vlen)
{
	if (name_is(name, nlen, "content-length")) {
		if (!vlen || vlen > 18)
			return fail(r, "the answer's Content-Length is not a number below 10^18");
		int64_t n = 0;
		for (size_t i = 0; i < vlen; i++) {
			if (!is_digit(v[i]))
				return fail(r, "the answer's Content-Length is not a number below 10^18");
			n = n * 10 + (v[i] - '0');
		}
		if (r->content_length >= 0 && r->content_length != n)
			return fail(r, "the answer has two different Content-Length headers");
		r->content_length = n;
	} else if (name_is(name, nlen, "transfer-encoding")) {
		if (r->chunked || !name_is(v, vlen, "chunked"))
			return fail(r, "the answer's Transfer-Encoding is not chunked alone");
		r->chunked = true;
	} else if (name_is(name, nlen, "connection")) {
		each_token(v, vlen, connection_token, r);
	}
	return HTTP_MORE;
}

/* The empty line after the headers: what the body is. */
static enum http_result headers_end(struct http_response *r)
{
	if (r->status == 101)
		return fail(r, "the server switched protocols");
	if (r->status < 200) { /* an interim answer (100 Continue): the real one follows */
		struct strbuf *body = r->body;
		size_t max = r->body_max, head = r->head_bytes;
		http_response_init(r, body, max);
		r->head_bytes = head;
		return HTTP_MORE;
	}
	r->keep_alive = r->minor >= 1 ? !r->conn_close : r->conn_keep && !r->conn_close;
	if (r->status == 204 || r->status == 304)
		return done(r);
	if (r->chunked) {
		if (r->content_length >= 0)
			r->keep_alive = false; /* both framings given: never trust the connection again */
		r->st = HS_CHUNK_SIZE;
		return HTTP_MORE;
	}
	if (r->content_length >= 0) {
		if ((uint64_t)r->content_length > r->body_max)
			return too_big(r);
		if (r->content_length == 0)
			return done(r);
		r->left = (uint64_t)r->content_length;
		r->st = HS_BODY_LEN;
		return HTTP_MORE;
	}
	r->keep_alive = false; /* the body runs to the connection's close */
	r->st = HS_BODY_EOF;
	return HTTP_MORE;
}

static enum http_result header_line(struct http_response *r, const char *s, size_t len)
{
	if (len == 0)
		return headers_end(r);
	if (is_ows(s[0]))
		return fail(r, "the answer folds a header over lines");
	const char *colon = memchr(s, ':', len);
	if (!colon || colon == s)
		return fail(r, "the answer holds a header line without a name");
	size_t nlen = (size_t)(colon - s);
	for (size_t i = 0; i < nlen; i++)
		if (!is_tchar(s[i]))
			return fail(r, "the answer holds a header name with a character not allowed there");
	const char *v = colon + 1, *end = s + len;
	while (v < end && is_ows(*v))
		v++;
	while (end > v && is_ows(end[-1]))
		end--;
	return header_value(r, s, nlen, v, (size_t)(end - v));
}

/* "HEX[ ;extension]" */
static enum http_result chunk_size_line(struct http_response *r, const char *s, size_t len)
{
	size_t i = 0;
	uint64_t n = 0;
	for (; i < len && hex_digit(s[i]) >= 0; i++) {
		n = n * 16 + (uint64_t)hex_digit(s[i]);
		if (n > CHUNK_MAX)
			return fail(r, "the answer announces a chunk larger than 1 GiB");
	}
	if (i == 0)
		return fail(r, "the answer's chunk does not start with its size");
	while (i < len && is_ows(s[i]))
		i++;
	if (i < len && s[i] != ';')
		return fail(r, "the answer's chunk size is followed by something else");
	if (n == 0) {
		r->st = HS_TRAILER;
		return HTTP_MORE;
	}
	if (n > r->body_max - r->body->len)
		return too_big(r);
	r->left = n;
	r->st = HS_CHUNK_DATA;
	return HTTP_MORE;
}

static enum http_result on_line(struct http_response *r, const char *s, size_t len)
{
	switch (r->st) {
	case HS_STATUS:
		return status_line(r, s, len);
	case HS_HEADER:
		return header_line(r, s, len);
	case HS_CHUNK_SIZE:
		return chunk_size_line(r, s, len);
	case HS_CHUNK_END:
		if (len)
			return fail(r, "the answer's chunk is longer than its size");
		r->st = HS_CHUNK_SIZE;
		return HTTP_MORE;
	case HS_TRAILER:
		return len ? HTTP_MORE : done(r);
	default:
		return fail(r, "internal: a line in a state that takes none");
	}
}

static bool in_head(enum http_state st)
{
	return st == HS_STATUS || st == HS_HEADER || st == HS_TRAILER;
}

/* Take the bytes of a line up to and including its '\n'; at the '\n', act on the line. */
static enum http_result take_line(struct http_response *r, const char *buf, size_t n, size_t *i)
{
	const char *nl = memchr(buf + *i, '\n', n - *i);
	size_t take = nl ? (size_t)(nl - (buf + *i)) : n - *i;
	if (take >= HTTP_LINE_MAX - r->line_len)
		return fail(r, "a line of the answer is longer than 8 KiB");
	if (in_head(r->st)) {
		r->head_bytes += take + (nl != NULL);
		if (r->head_bytes > HTTP_HEAD_MAX)
			return fail(r, "the answer's headers are longer than 64 KiB");
	}
	memcpy(r->line + r->line_len, buf + *i, take);
	r->line_len += take;
	*i += take;
	if (!nl)
		return HTTP_MORE;
	(*i)++;
	size_t len = r->line_len;
	if (len && r->line[len - 1] == '\r')
		len--;
	r->line_len = 0;
	return on_line(r, r->line, len);
}

enum http_result http_response_feed(struct http_response *r, const char *buf, size_t n,
				    size_t *used)
{
	size_t i = 0;
	enum http_result res = HTTP_MORE;
	while (i < n && res == HTTP_MORE && r->st != HS_DONE && r->st != HS_FAILED) {
		size_t take;
		switch (r->st) {
		case HS_BODY_LEN:
		case HS_CHUNK_DATA:
			take = n - i < r->left ? n - i : (size_t)r->left;
			if (!body_add(r, buf + i, take)) {
				res = too_big(r);
				break;
			}
			r->left -= take;
			i += take;
			if (!r->left) {
				if (r->st == HS_BODY_LEN)
					res = done(r);
				else
					r->st = HS_CHUNK_END;
			}
			break;
		case HS_BODY_EOF:
			if (!body_add(r, buf + i, n - i)) {
				res = too_big(r);
				break;
			}
			i = n;
			break;
		default:
			res = take_line(r, buf, n, &i);
			break;
		}
	}
	*used = i;
	if (r->st == HS_DONE || r->st == HS_FAILED)
		return r->result;
	return HTTP_MORE;
}

enum http_result http_response_eof(struct http_response *r)
{
	switch (r->st) {
	case HS_DONE:
	case HS_FAILED:
		return r->result;
	case HS_BODY_EOF:
		return done(r);
	case HS_STATUS:
		if (!r->head_bytes && !r->line_len)
			return fail(r, "the connection closed before an answer");
		/* fall through */
	default:
		return fail(r, "the connection closed before the answer ended");
	}
}
