/* fuzz_net.c — libFuzzer harness: what v8walk's network client and launch mode read from
 * outside: the first byte picks the decoder — an HTTP response (read whole and in pieces whose
 * sizes the input gives: both must agree), a DNS answer for A and for AAAA, /etc/hosts text,
 * /etc/passwd and /etc/group text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../cli/user_groups.h"
#include "../net/dns_answer.h"
#include "../net/hosts_file.h"
#include "../net/http_response.h"

enum { BODY_MAX = 4096 };

struct outcome {
	enum http_result res;
	size_t used, body_len;
	int status;
	bool keep_alive;
};

/* Feed text[0..len) in pieces: piece i is 1 + sizes[i % nsizes] bytes (nsizes 0: whole). */
static struct outcome read_response(const char *text, size_t len, const uint8_t *sizes,
				    size_t nsizes, struct strbuf *body)
{
	struct http_response r;
	http_response_init(&r, body, BODY_MAX);
	struct outcome o = {.res = HTTP_MORE};
	size_t at = 0;
	for (size_t i = 0; at < len && o.res == HTTP_MORE; i++) {
		size_t n = nsizes ? 1 + (size_t)sizes[i % nsizes] : len - at;
		if (n > len - at)
			n = len - at;
		size_t used = 0;
		o.res = http_response_feed(&r, text + at, n, &used);
		if (used > n || (o.res == HTTP_MORE && used != n))
			abort();
		at += used;
	}
	if (o.res == HTTP_MORE)
		o.res = http_response_eof(&r);
	if (o.res == HTTP_BAD && (!r.error || !r.error[0]))
		abort();
	if (body->len > BODY_MAX)
		abort();
	o.used = at;
	o.body_len = body->len;
	o.status = r.status;
	o.keep_alive = r.keep_alive;
	return o;
}

static void http(const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	size_t nsizes = data[0] % 8; /* the next nsizes bytes are the piece sizes */
	if (size < 1 + nsizes)
		return;
	const uint8_t *sizes = data + 1;
	const char *text = (const char *)data + 1 + nsizes;
	size_t len = size - 1 - nsizes;
	struct strbuf whole_body, piece_body;
	sb_init(&whole_body);
	sb_init(&piece_body);
	struct outcome whole = read_response(text, len, NULL, 0, &whole_body);
	struct outcome pieces = read_response(text, len, sizes, nsizes, &piece_body);
	/* the answer does not depend on how the connection cut it */
	if (nsizes && (whole.res != pieces.res || whole.used != pieces.used ||
		       whole.status != pieces.status || whole.keep_alive != pieces.keep_alive ||
		       whole.body_len != pieces.body_len ||
		       (whole.body_len && memcmp(whole_body.s, piece_body.s, whole.body_len))))
		abort();
	sb_free(&whole_body);
	sb_free(&piece_body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *rest = data + 1;
	size_t len = size - 1;
	struct addr_list l = {0};
	switch (data[0] % 4) {
	case 0:
		http(rest, len);
		break;
	case 1:
		dns_answer_addrs(rest, len, DNS_TYPE_A, &l);
		for (size_t i = 0; i < l.n; i++)
			if (l.v[i].family != AF_INET)
				abort();
		l.n = 0;
		dns_answer_addrs(rest, len, DNS_TYPE_AAAA, &l);
		break;
	case 2:
		hosts_lookup((const char *)rest, len, "clickhouse", &l);
		hosts_lookup((const char *)rest, len, "localhost.", &l);
		break;
	case 3: {
		uid_t uid;
		gid_t gid, groups[8];
		passwd_find((const char *)rest, len, "alice", &uid, &gid);
		int n = group_list((const char *)rest, len, "alice", 1000, groups, 8);
		if (n == 0 || n > 8 || (n > 0 && groups[0] != 1000))
			abort();
		break;
	}
	}
	if (l.n > ADDR_LIST_MAX)
		abort();
	return 0;
}
