/* http_response.h — an HTTP/1.x response read incrementally from the bytes a connection gives:
 * the status line, the headers v8walk acts on (Content-Length, Transfer-Encoding: chunked,
 * Connection), and the body by Content-Length, by chunks, or up to the connection's close.
 * The bytes are hostile input: every line and the header section are bounded, numbers are
 * overflow-checked, the body is kept up to a limit; a malformed answer is HTTP_BAD with one line
 * saying what was wrong. Pure (no I/O), so it can be unit tested and fuzzed. */
#ifndef V8WALK_HTTP_RESPONSE_H
#define V8WALK_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

enum {
	HTTP_LINE_MAX = 8192,      /* bytes of one status, header, chunk-size or trailer line */
	HTTP_HEAD_MAX = 64 * 1024, /* bytes of the status line and headers together */
};

enum http_result {
	HTTP_MORE,    /* all bytes taken; the response goes on */
	HTTP_DONE,    /* the response ended (bytes after it were not taken) */
	HTTP_BAD,     /* not an HTTP/1.x response as read here: r->error says why */
	HTTP_TOO_BIG, /* the body is longer than body_max */
};

enum http_state {
	HS_STATUS, HS_HEADER, HS_BODY_LEN, HS_BODY_EOF, HS_CHUNK_SIZE, HS_CHUNK_DATA, HS_CHUNK_END,
	HS_TRAILER, HS_DONE, HS_FAILED,
};

struct http_response {
	/* what the response said */
	int status;             /* 100-599 */
	bool keep_alive;        /* the connection may carry another request after this response */
	int64_t content_length; /* -1: not given */
	bool chunked;
	struct strbuf *body;    /* the body is appended here */
	size_t body_max;
	const char *error;      /* HTTP_BAD: what was wrong (static text) */
	/* the parser's own */
	enum http_state st;
	enum http_result result; /* once the response ended or failed */
	int minor;              /* HTTP/1.minor */
	bool conn_close, conn_keep;
	uint64_t left;          /* bytes of the body or of the chunk still to come */
	size_t head_bytes;      /* status line and headers so far */
	size_t line_len;
	char line[HTTP_LINE_MAX];
};

/* Ready for a response; its body goes to *body (reset), at most body_max bytes. */
void http_response_init(struct http_response *r, struct strbuf *body, size_t body_max);
/* Take buf[0..n): *used is how many bytes belong to this response (all of them on HTTP_MORE).
 * Once a result other than HTTP_MORE is returned, later calls return it again. */
enum http_result http_response_feed(struct http_response *r, const char *buf, size_t n,
				    size_t *used);
/* The connection closed: HTTP_DONE for a body that runs to the close, HTTP_BAD otherwise. */
enum http_result http_response_eof(struct http_response *r);

#endif
