/* ch_http.c — ClickHouse over v8walk's own HTTP/1.1 client; credentials from the environment or
 * a file (ch_http.h). */
#include "ch_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/http_request.h"
#include "../net/http_response.h"
#include "../util/clock.h"
#include "../util/text_escape.h"
#include "../util/version.h"
#include "../util/xalloc.h"

enum { CRED_FILE_MAX = 4096, ERROR_LINE_MAX = 300, READ_CHUNK = 64 * 1024 };

static bool copy_cred(char *dst, const char *src, size_t len, const char *what, struct strbuf *why)
{
	if (len >= CH_CRED_MAX) {
		sb_printf(why, "the ClickHouse %s is longer than %d bytes", what, CH_CRED_MAX - 1);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) {
			sb_printf(why, "the ClickHouse %s holds a control character", what);
			return false;
		}
	memcpy(dst, src, len);
	dst[len] = 0;
	return true;
}

static bool credentials_from_file(const char *file, struct ch_credentials *c, struct strbuf *why)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		sb_printf(why, "cannot read the credentials file ");
		sb_add_escaped_str(why, file);
		sb_printf(why, " (%s)", strerror(errno));
		return false;
	}
	char buf[CRED_FILE_MAX];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	size_t line = strcspn(buf, "\r\n");
	char *colon = memchr(buf, ':', line);
	if (!colon) {
		sb_add(why, "the credentials file's first line must be USER:PASSWORD");
		return false;
	}
	return copy_cred(c->user, buf, (size_t)(colon - buf), "user", why) &&
	       copy_cred(c->password, colon + 1, line - (size_t)(colon + 1 - buf), "password", why);
}

bool ch_credentials_load(const char *file, struct ch_credentials *c, struct strbuf *why)
{
	memset(c, 0, sizeof(*c));
	if (file && !credentials_from_file(file, c, why))
		return false;
	const char *user = getenv("V8WALK_CLICKHOUSE_USER");
	const char *password = getenv("V8WALK_CLICKHOUSE_PASSWORD");
	if (user && !copy_cred(c->user, user, strlen(user), "user", why))
		return false;
	if (password && !copy_cred(c->password, password, strlen(password), "password", why))
		return false;
	if (strchr(c->user, ':')) {
		sb_add(why, "the ClickHouse user holds a ':', which basic authentication cannot carry");
		return false;
	}
	return true;
}

bool ch_conn_init(struct ch_conn *c, const struct ch_url *u, const struct ch_credentials *cred)
{
	memset(c, 0, sizeof(*c));
	c->url = *u;
	c->cred = *cred;
	c->connect_timeout_ms = 2000;
	c->timeout_ms = 30000;
	c->hosts_file = "/etc/hosts";
	c->ca_file = getenv("V8WALK_CLICKHOUSE_CA");
	if (c->ca_file && !c->ca_file[0])
		c->ca_file = NULL;
	net_conn_init(&c->net);
	sb_init(&c->head);
	c->rbuf = xmalloc(READ_CHUNK);
	return true;
}

void ch_conn_free(struct ch_conn *c)
{
	net_conn_close(&c->net);
	tls_trust_free(c->trust);
	c->trust = NULL;
	sb_free(&c->head);
	free(c->rbuf);
	c->rbuf = NULL;
}

/* ClickHouse's answer to a failed query, as one line: "Code: N, e.displayText() = …". */
static void server_error(const struct ch_conn *c, int status, const struct strbuf *answer,
			 struct strbuf *why)
{
	size_t line = answer->s ? strcspn(answer->s, "\r\n") : 0;
	if (line > ERROR_LINE_MAX)
		line = ERROR_LINE_MAX;
	bool auth = answer->s && (strstr(answer->s, "Code: 193,") || strstr(answer->s, "Code: 192,") ||
				  strstr(answer->s, "Code: 516,"));
	sb_printf(why, "ClickHouse at %s%s answered HTTP %d: ", c->url.base,
		  auth ? " refused the credentials (V8WALK_CLICKHOUSE_USER/PASSWORD or "
			 "--export-credentials)," : "", status);
	if (line)
		sb_add_escaped(why, answer->s, line);
	else
		sb_add(why, "(no message)");
}

static bool open_conn(struct ch_conn *c, uint64_t deadline_ns, struct net_error *err)
{
	if (c->url.tls && !c->trust && !(c->trust = tls_trust_new(c->ca_file, err)))
		return false;
	struct net_target t = {.host = c->url.host, .port = c->url.port,
			       .tls = c->url.tls ? c->trust : NULL, .hosts_file = c->hosts_file};
	uint64_t connect_by = now_ns() + (uint64_t)c->connect_timeout_ms * 1000000u;
	return net_conn_open(&c->net, &t, connect_by, deadline_ns, err);
}

/* One request on the open connection and its answer into *r; *received counts the answer's
 * bytes (0: the server said nothing, which on a reused connection means it had closed it). */
static bool exchange(struct ch_conn *c, const void *body, size_t len, uint64_t deadline_ns,
		     struct http_response *r, size_t *received, struct net_error *err)
{
	*received = 0;
	if (!net_conn_write2(&c->net, c->head.s, c->head.len, body, len, deadline_ns, err))
		return false;
	for (;;) {
		ssize_t n = net_conn_read(&c->net, c->rbuf, READ_CHUNK, deadline_ns, err);
		if (n < 0)
			return false;
		enum http_result res;
		size_t used = 0;
		if (n == 0) {
			if (!*received)
				return net_fail(err, NET_IO, "the server closed the connection without "
						"answering");
			res = http_response_eof(r);
		} else {
			*received += (size_t)n;
			res = http_response_feed(r, c->rbuf, (size_t)n, &used);
		}
		switch (res) {
		case HTTP_MORE:
			continue;
		case HTTP_DONE:
			/* bytes after the answer (none were asked for), or the server's wish: close */
			if (n == 0 || used < (size_t)n || !r->keep_alive)
				net_conn_close(&c->net);
			return true;
		case HTTP_TOO_BIG:
			return net_fail(err, NET_TOO_BIG, "the answer is larger than %zu MiB",
					CH_ANSWER_MAX >> 20);
		case HTTP_BAD:
			return net_fail(err, NET_PROTOCOL, "the answer is not HTTP as expected: %s",
					r->error);
		}
	}
}

static bool make_head(struct ch_conn *c, const char *query, bool in_url, size_t len, bool gzip)
{
	struct strbuf target, host;
	sb_init(&target);
	sb_init(&host);
	sb_add(&target, "/");
	if (in_url) {
		sb_add(&target, "?query=");
		url_encode(&target, query, strlen(query));
	}
	sb_printf(&host, "%s:%u", c->url.host, c->url.port);
	char agent[64];
	snprintf(agent, sizeof(agent), "v8walk/%s", v8walk_release);
	bool auth = c->cred.user[0] || c->cred.password[0];
	struct http_post p = {.target = target.s, .host = host.s,
			      .user = auth ? (c->cred.user[0] ? c->cred.user : "default") : NULL,
			      .password = c->cred.password, .gzip = gzip, .body_len = len,
			      .user_agent = agent};
	sb_reset(&c->head);
	bool ok = http_post_head(&c->head, &p);
	sb_free(&target);
	sb_free(&host);
	return ok;
}

bool ch_post(struct ch_conn *c, const char *query, const void *body, size_t len, bool gzip,
	     struct strbuf *answer, struct strbuf *why)
{
	bool in_url = body != NULL;
	if (!in_url) {
		body = query;
		len = strlen(query);
	}
	c->unreachable = false;
	if (!make_head(c, query, in_url, len, gzip)) {
		sb_printf(why, "the ClickHouse credentials cannot go in an HTTP header");
		return false;
	}
	uint64_t deadline = now_ns() + (uint64_t)c->timeout_ms * 1000000u;
	struct net_error err = {.kind = NET_OK};
	struct http_response r;
	bool ok = false;
	/* a kept connection the server has closed meanwhile is found out by the first read or
	 * write: then once more on a new connection */
	for (int attempt = 0; attempt < 2 && !ok; attempt++) {
		bool reused = net_conn_is_open(&c->net);
		if (reused && net_conn_idle_broken(&c->net)) {
			net_conn_close(&c->net);
			reused = false;
		}
		if (!reused && !open_conn(c, deadline, &err))
			break;
		http_response_init(&r, answer, CH_ANSWER_MAX);
		size_t received;
		ok = exchange(c, body, len, deadline, &r, &received, &err);
		if (!ok) {
			net_conn_close(&c->net);
			if (!reused || received || err.kind != NET_IO)
				break;
		}
	}
	if (!ok) {
		c->unreachable = net_fail_unreachable(err.kind);
		if (c->unreachable)
			snprintf(c->unreachable_why, sizeof(c->unreachable_why), "%s", err.text);
		if (err.kind == NET_TOO_BIG)
			sb_printf(why, "ClickHouse at %s answered more than %zu MiB", c->url.base,
				  CH_ANSWER_MAX >> 20);
		else
			sb_printf(why, "cannot reach ClickHouse at %s (%s)", c->url.base, err.text);
		return false;
	}
	if (r.status != 200) {
		server_error(c, r.status, answer, why);
		return false;
	}
	return true;
}
