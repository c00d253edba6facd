/* http_request.h — the head of an HTTP/1.1 POST: the request line, Host, the body's length and
 * encoding, basic authentication; and the encodings it needs (a URL's query component, base64).
 * Header values are checked: a CR, LF or NUL in one is refused, never sent. */
#ifndef V8WALK_HTTP_REQUEST_H
#define V8WALK_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/strbuf.h"

struct http_post {
	const char *target;       /* "/?query=..." (already encoded) */
	const char *host;         /* the Host header: "name:port", "[v6]:port" */
	const char *user;         /* basic authentication when not NULL */
	const char *password;
	const char *content_type; /* NULL: application/octet-stream */
	const char *user_agent;   /* NULL: none */
	bool gzip;                /* Content-Encoding: gzip */
	size_t body_len;
};

/* Append the request head (ending with the empty line) to out; false when a value holds a
 * character that would break the header section (out is then unchanged). */
bool http_post_head(struct strbuf *out, const struct http_post *p);
/* Percent-encode s[0..len) for a URL's query component (all but A-Z a-z 0-9 - . _ ~). */
void url_encode(struct strbuf *out, const char *s, size_t len);
/* Standard base64 with padding. */
void base64_encode(struct strbuf *out, const void *data, size_t len);

#endif
