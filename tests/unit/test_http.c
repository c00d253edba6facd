/* test_http.c — the HTTP/1.x response reader (net/http_response.c) on every framing, split at
 * every byte, and on malformed, oversized and truncated answers; the request head, base64 and
 * URL encoding (net/http_request.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../net/http_request.h"
#include "../../net/http_response.h"

struct parsed {
	enum http_result res;
	size_t used;     /* bytes taken before the result */
	int status;
	bool keep_alive;
	char body[4096];
	size_t body_len;
	const char *error;
};

/* Feed text in pieces of `step` bytes (0: whole); eof: then say the connection closed. */
static struct parsed parse_max(const char *text, size_t len, size_t step, bool eof, size_t body_max)
{
	struct strbuf body;
	sb_init(&body);
	struct http_response r;
	http_response_init(&r, &body, body_max);
	struct parsed p = {.res = HTTP_MORE};
	size_t at = 0;
	while (at < len && p.res == HTTP_MORE) {
		size_t n = step && len - at > step ? step : len - at;
		size_t used = 0;
		p.res = http_response_feed(&r, text + at, n, &used);
		cr_assert_leq(used, n);
		if (p.res == HTTP_MORE)
			cr_assert_eq(used, n, "MORE takes every byte");
		at += used;
	}
	if (p.res == HTTP_MORE && eof)
		p.res = http_response_eof(&r);
	p.used = at;
	p.status = r.status;
	p.keep_alive = r.keep_alive;
	p.error = r.error;
	p.body_len = body.len;
	cr_assert_leq(body.len, body_max, "the body stays within its limit");
	if (body.len < sizeof(p.body))
		memcpy(p.body, body.s ? body.s : "", body.len);
	sb_free(&body);
	return p;
}

static struct parsed parse(const char *text, size_t step, bool eof)
{
	return parse_max(text, strlen(text), step, eof, 1 << 20);
}

/* The same answer read whole and one byte at a time, and at every step between. */
static struct parsed parse_every_split(const char *text, bool eof)
{
	struct parsed whole = parse(text, 0, eof);
	for (size_t step = 1; step < strlen(text); step++) {
		struct parsed p = parse(text, step, eof);
		cr_assert_eq(p.res, whole.res, "step %zu", step);
		cr_assert_eq(p.used, whole.used, "step %zu", step);
		cr_assert_eq(p.status, whole.status);
		cr_assert_eq(p.keep_alive, whole.keep_alive);
		cr_assert_eq(p.body_len, whole.body_len, "step %zu", step);
		cr_assert(!memcmp(p.body, whole.body, p.body_len), "step %zu", step);
	}
	return whole;
}

Test(http_response, content_length)
{
	struct parsed p = parse_every_split("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.status, 200);
	cr_assert(p.keep_alive, "HTTP/1.1 keeps the connection by default");
	cr_assert_eq(p.body_len, 5);
	cr_assert(!memcmp(p.body, "hello", 5));
}

Test(http_response, chunked_with_extensions_and_trailers)
{
	const char *t = "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n"
			"X-ClickHouse-Exception-Code: 60\r\n\r\n"
			"7\r\nCode: 6\r\n1a;name=value\r\n0, e.displayText() = Table\r\n"
			"0\r\nX-Trailer: yes\r\n\r\n";
	struct parsed p = parse_every_split(t, false);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.status, 500);
	cr_assert_eq(p.body_len, 33);
	cr_assert(!memcmp(p.body, "Code: 60, e.displayText() = Table", 33));
	cr_assert_eq(p.used, strlen(t));
}

Test(http_response, bare_newlines_and_header_case)
{
	struct parsed p = parse_every_split("HTTP/1.1 200\ncontent-LENGTH:   3  \n\nabc", false);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.body_len, 3);
}

Test(http_response, keep_alive_rules)
{
	cr_assert_not(parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 0, false).keep_alive);
	cr_assert_not(parse("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n", 0, false).keep_alive);
	cr_assert_not(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 0, false).keep_alive,
		      "HTTP/1.0 closes by default");
	cr_assert(parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 0, false).keep_alive);
	/* ClickHouse's own headers */
	cr_assert(parse("HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nKeep-Alive: timeout=3\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, false).keep_alive);
	/* both framings: the chunks count, and the connection is not used again */
	struct parsed both = parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n"
				   "2\r\nok\r\n0\r\n\r\n", 0, false);
	cr_assert_eq(both.res, HTTP_DONE);
	cr_assert_eq(both.body_len, 2);
	cr_assert_not(both.keep_alive);
}

Test(http_response, body_to_the_close)
{
	struct parsed open = parse("HTTP/1.1 200 OK\r\n\r\nall of it", 1, false);
	cr_assert_eq(open.res, HTTP_MORE, "no length: the body runs until the close");
	struct parsed p = parse("HTTP/1.1 200 OK\r\n\r\nall of it", 1, true);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.body_len, 9);
	cr_assert_not(p.keep_alive);
}

Test(http_response, interim_and_bodiless_answers)
{
	struct parsed p = parse_every_split("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.status, 200);
	cr_assert_eq(p.body_len, 2);
	struct parsed none = parse("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 0, false);
	cr_assert_eq(none.res, HTTP_DONE);
	cr_assert_eq(none.body_len, 0);
	cr_assert_eq(parse("HTTP/1.1 101 Switching Protocols\r\n\r\n", 0, false).res, HTTP_BAD);
}

Test(http_response, bytes_after_the_answer_are_left)
{
	const char *t = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n";
	struct parsed p = parse(t, 0, false);
	cr_assert_eq(p.res, HTTP_DONE);
	cr_assert_eq(p.used, strlen(t) - strlen("HTTP/1.1 200 OK\r\n"));
	struct parsed chunked = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nJUNK", 0, false);
	cr_assert_eq(chunked.res, HTTP_DONE);
	cr_assert_eq(chunked.used, strlen("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
}

/* one malformed answer each: HTTP_BAD with a reason, whole or byte by byte */
Test(http_response, malformed)
{
	static const char *const bad[] = {
		"SSH-2.0-OpenSSH_9.2\r\n",
		"HTTP/2 200\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/1.1 099 Odd\r\n\r\n",
		"HTTP/1.1 200 OK\r\n folded: header\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
		"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
		"HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (size_t step = 0; step <= 1; step++) {
			struct parsed p = parse(bad[i], step, true);
			cr_assert_eq(p.res, HTTP_BAD, "%s", bad[i]);
			cr_assert(p.error && p.error[0], "a reason for %s", bad[i]);
			cr_assert_null(strchr(p.error, '\n'), "one line");
		}
	}
}

Test(http_response, truncated_answers)
{
	struct parsed nothing = parse("", 0, true);
	cr_assert_eq(nothing.res, HTTP_BAD);
	cr_assert_str_eq(nothing.error, "the connection closed before an answer");
	static const char *const cut[] = {
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
	};
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		struct parsed p = parse(cut[i], 1, true);
		cr_assert_eq(p.res, HTTP_BAD, "%s", cut[i]);
		cr_assert_str_eq(p.error, "the connection closed before the answer ended");
	}
}

Test(http_response, bounded_lines_headers_and_body)
{
	static char text[HTTP_HEAD_MAX + 4096];
	/* one line over 8 KiB */
	int n = snprintf(text, sizeof(text), "HTTP/1.1 200 OK\r\nX-Long: ");
	memset(text + n, 'a', HTTP_LINE_MAX);
	struct parsed p = parse_max(text, (size_t)n + HTTP_LINE_MAX, 1000, false, 1 << 20);
	cr_assert_eq(p.res, HTTP_BAD);
	cr_assert(strstr(p.error, "longer than 8 KiB"));
	/* many short headers over 64 KiB */
	size_t at = (size_t)snprintf(text, sizeof(text), "HTTP/1.1 200 OK\r\n");
	while (at + 16 < sizeof(text))
		at += (size_t)snprintf(text + at, sizeof(text) - at, "X-A: 0123456\r\n");
	p = parse_max(text, at, 0, false, 1 << 20);
	cr_assert_eq(p.res, HTTP_BAD);
	cr_assert(strstr(p.error, "64 KiB"));
	/* a body over the limit, by Content-Length (before any byte of it), by chunks, to the close */
	const char *l = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n";
	cr_assert_eq(parse_max(l, strlen(l), 0, false, 10).res, HTTP_TOO_BIG);
	const char *c = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n";
	cr_assert_eq(parse_max(c, strlen(c), 1, false, 10).res, HTTP_TOO_BIG);
	cr_assert_eq(parse_max(c, strlen(c), 1, false, 12).res, HTTP_DONE, "exactly the limit is fine");
	const char *e = "HTTP/1.1 200 OK\r\n\r\n0123456789ab";
	cr_assert_eq(parse_max(e, strlen(e), 3, true, 10).res, HTTP_TOO_BIG);
}

Test(http_response, the_result_sticks)
{
	struct strbuf body;
	sb_init(&body);
	struct http_response r;
	http_response_init(&r, &body, 100);
	size_t used;
	cr_assert_eq(http_response_feed(&r, "junk\r\n", 6, &used), HTTP_BAD);
	cr_assert_eq(http_response_feed(&r, "HTTP/1.1 200 OK\r\n", 17, &used), HTTP_BAD);
	cr_assert_eq(used, 0);
	cr_assert_eq(http_response_eof(&r), HTTP_BAD);
	sb_free(&body);
}

Test(http_request, base64_vectors)
{
	/* RFC 4648, section 10 */
	static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (size_t i = 0; i < 7; i++) {
		struct strbuf b;
		sb_init(&b);
		base64_encode(&b, in[i], strlen(in[i]));
		cr_assert_str_eq(b.s ? b.s : "", out[i]);
		sb_free(&b);
	}
}

Test(http_request, url_encoding)
{
	struct strbuf b;
	sb_init(&b);
	const char q[] = "INSERT INTO db.t_samples FORMAT RowBinary\n&x=1+2/~é";
	url_encode(&b, q, strlen(q));
	cr_assert_str_eq(b.s, "INSERT%20INTO%20db.t_samples%20FORMAT%20RowBinary%0A%26x%3D1%2B2%2F~%C3%A9");
	sb_free(&b);
}

Test(http_request, head)
{
	struct strbuf b;
	sb_init(&b);
	struct http_post p = {.target = "/?query=SELECT%201", .host = "[::1]:8123", .user = "agent",
			      .password = "secret", .gzip = true, .body_len = 42, .user_agent = "v8walk/0.2.0"};
	cr_assert(http_post_head(&b, &p));
	cr_assert_str_eq(b.s, "POST /?query=SELECT%201 HTTP/1.1\r\nHost: [::1]:8123\r\n"
			      "User-Agent: v8walk/0.2.0\r\nAuthorization: Basic YWdlbnQ6c2VjcmV0\r\n"
			      "Content-Type: application/octet-stream\r\nContent-Length: 42\r\n"
			      "Content-Encoding: gzip\r\nConnection: keep-alive\r\n\r\n");
	sb_reset(&b);
	struct http_post plain = {.target = "/", .host = "h:1", .body_len = 0};
	cr_assert(http_post_head(&b, &plain));
	cr_assert_str_eq(b.s, "POST / HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/octet-stream\r\n"
			      "Content-Length: 0\r\nConnection: keep-alive\r\n\r\n");
	sb_free(&b);
}

Test(http_request, header_injection_is_refused)
{
	struct strbuf b;
	sb_init(&b);
	struct http_post p = {.target = "/", .host = "h:1", .user = "u", .password = "p\r\nX-Evil: 1"};
	cr_assert_not(http_post_head(&b, &p));
	p.password = "p";
	p.user = "a:b";
	cr_assert_not(http_post_head(&b, &p), "a ':' in the user would move the password's start");
	p.user = "u";
	p.host = "h:1\nX: y";
	cr_assert_not(http_post_head(&b, &p));
	p.host = "h:1";
	p.target = "/ HTTP/1.0";
	cr_assert_not(http_post_head(&b, &p));
	cr_assert_eq(b.len, 0, "nothing written");
	sb_free(&b);
}
