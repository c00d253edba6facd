/* ch_http.h — one connection to ClickHouse's HTTP interface (v8walk's own HTTP/1.1 client,
 * net/: kept alive between requests and opened again when the server closed it; TLS with
 * mbedTLS), and where its credentials come from: the environment (V8WALK_CLICKHOUSE_USER,
 * V8WALK_CLICKHOUSE_PASSWORD) or a file (`USER:PASSWORD` on its first line), never the command
 * line; they go as HTTP basic authentication. TLS trusts the host's CA bundle, or the CA file
 * named by V8WALK_CLICKHOUSE_CA (a private CA or a self-signed server). Answers are bounded and
 * errors are one line. */
#ifndef V8WALK_CH_HTTP_H
#define V8WALK_CH_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "../net/net_conn.h"
#include "../util/strbuf.h"
#include "ch_url.h"

enum { CH_CRED_MAX = 256, CH_UNREACHABLE_WHY_MAX = 256 };
#define CH_ANSWER_MAX ((size_t)256 << 20) /* bytes of one answer kept at most */

struct ch_credentials {
	char user[CH_CRED_MAX];     /* "" = ClickHouse's default user */
	char password[CH_CRED_MAX];
};

/* From `file` (NULL: the environment only; the environment's values come first); false with a
 * one-line reason in why. */
bool ch_credentials_load(const char *file, struct ch_credentials *c, struct strbuf *why);

struct ch_conn {
	struct ch_url url;
	struct ch_credentials cred;
	const char *ca_file;      /* V8WALK_CLICKHOUSE_CA, or NULL: the host's CA bundle */
	const char *hosts_file;   /* "/etc/hosts" */
	long connect_timeout_ms;  /* for the TCP connection to answer */
	long timeout_ms;          /* for a whole request: connection, TLS, sending, the answer */
	/* set by each ch_post: it failed because the server could not be reached (name not
	 * resolved, connection refused or timed out, connection broken, no answer in time), not
	 * because of what it answered or of TLS; `unreachable_why` then holds the reason */
	bool unreachable;
	char unreachable_why[CH_UNREACHABLE_WHY_MAX];
	/* the client's own */
	struct net_conn net;      /* open between requests while the server keeps it */
	struct tls_trust *trust;  /* https: the CAs, loaded at the first connection */
	struct strbuf head;       /* the request head being sent */
	char *rbuf;               /* what the socket gives */
};

bool ch_conn_init(struct ch_conn *c, const struct ch_url *u, const struct ch_credentials *cred);
void ch_conn_free(struct ch_conn *c);

/* Run `query`: as the POST body when body is NULL, otherwise in the URL with body[0..len) as the
 * POST body (gzip: it is gzip-compressed). The answer goes to *answer. Returns true on HTTP 200;
 * otherwise false with one line in *why: the server unreachable, wrong credentials, or
 * ClickHouse's own message. */
bool ch_post(struct ch_conn *c, const char *query, const void *body, size_t len, bool gzip,
	     struct strbuf *answer, struct strbuf *why);

#endif
