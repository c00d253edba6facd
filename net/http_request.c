/* http_request.c — an HTTP/1.1 POST's head and its encodings (http_request.h). */
#include "http_request.h"

#include <string.h>

void url_encode(struct strbuf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			sb_addc(out, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			sb_addn(out, e, 3);
		}
	}
}

void base64_encode(struct strbuf *out, const void *data, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < len)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		char q[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], i + 1 < len ? abc[v >> 6 & 63] : '=',
			     i + 2 < len ? abc[v & 63] : '='};
		sb_addn(out, q, 4);
	}
}

/* No CR, LF or NUL (nor any other control character but tab) in a header value. */
static bool value_ok(const char *s)
{
	for (; s && *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return false;
	return true;
}

bool http_post_head(struct strbuf *out, const struct http_post *p)
{
	if (!value_ok(p->target) || strchr(p->target, ' ') || !value_ok(p->host) ||
	    !value_ok(p->user) || !value_ok(p->password) || !value_ok(p->content_type) ||
	    !value_ok(p->user_agent) || (p->user && strchr(p->user, ':')))
		return false;
	sb_printf(out, "POST %s HTTP/1.1\r\nHost: %s\r\n", p->target, p->host);
	if (p->user_agent)
		sb_printf(out, "User-Agent: %s\r\n", p->user_agent);
	if (p->user) {
		struct strbuf pair;
		sb_init(&pair);
		sb_printf(&pair, "%s:%s", p->user, p->password ? p->password : "");
		sb_add(out, "Authorization: Basic ");
		base64_encode(out, pair.s, pair.len);
		sb_add(out, "\r\n");
		memset(pair.s, 0, pair.len);
		sb_free(&pair);
	}
	sb_printf(out, "Content-Type: %s\r\nContent-Length: %zu\r\n",
		  p->content_type ? p->content_type : "application/octet-stream", p->body_len);
	if (p->gzip)
		sb_add(out, "Content-Encoding: gzip\r\n");
	sb_add(out, "Connection: keep-alive\r\n\r\n");
	return true;
}
