/* test_ch_client.c — ch_post (export/ch_http.c over net/) against a scripted HTTP server on the
 * loopback, in a thread of the test: kept-alive connections, chunked and Content-Length
 * answers, the server closing an idle connection or dropping a request on a reused one, a
 * server that never answers, a refused port, error statuses, an answer that is not HTTP, an
 * IPv6 literal, and the request's own head (authentication, gzip, the query in the URL). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../export/ch_http.h"
#include "../../util/clock.h"

enum { MAX_STEPS = 8 };

enum after { KEEP, CLOSE_AFTER, DROP_REQUEST, NEVER_ANSWER };

struct step {
	const char *answer;
	enum after after;
};

struct server {
	int lfd;
	unsigned port;
	struct step steps[MAX_STEPS];
	int nsteps;
	/* what it saw */
	int connections, requests;
	char request[MAX_STEPS][2048]; /* each request's head and body */
	pthread_t th;
};

/* Read one request (head, then Content-Length bytes of body) into buf; false at EOF. */
static bool read_request(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	char *end = NULL;
	while (!(end = memmem(buf, n, "\r\n\r\n", 4))) {
		if (n + 1 >= cap)
			return false;
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0)
			return false;
		n += (size_t)r;
	}
	buf[n] = 0;
	const char *cl = strstr(buf, "Content-Length: ");
	size_t want = (size_t)(end + 4 - buf) + (cl ? strtoul(cl + 16, NULL, 10) : 0);
	while (n < want && n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0)
			return false;
		n += (size_t)r;
	}
	buf[n] = 0;
	return true;
}

static void *serve(void *arg)
{
	struct server *s = arg;
	while (s->requests < s->nsteps) {
		struct pollfd p = {.fd = s->lfd, .events = POLLIN};
		if (poll(&p, 1, 5000) <= 0)
			break;
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			break;
		s->connections++;
		while (s->requests < s->nsteps) {
			int i = s->requests;
			if (!read_request(fd, s->request[i], sizeof(s->request[i])))
				break;
			s->requests++;
			const struct step *st = &s->steps[i];
			if (st->after == NEVER_ANSWER) {
				char c;
				while (read(fd, &c, 1) > 0) /* until the client gives up */
					;
				break;
			}
			if (st->after == DROP_REQUEST)
				break;
			ssize_t w = write(fd, st->answer, strlen(st->answer));
			(void)w;
			if (st->after == CLOSE_AFTER)
				break;
		}
		close(fd);
	}
	return NULL;
}

static bool server_start(struct server *s, int family, const struct step *steps, int n)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->steps, steps, sizeof(*steps) * (size_t)n);
	s->nsteps = n;
	s->lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&ss, len) != 0 || listen(s->lfd, 4) != 0)
		return false;
	getsockname(s->lfd, (struct sockaddr *)&ss, &len);
	s->port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					  : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return pthread_create(&s->th, NULL, serve, s) == 0;
}

static void server_stop(struct server *s)
{
	shutdown(s->lfd, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->lfd);
}

/* a ch_conn to HOST:PORT, and the answer and error of its last request */
struct client {
	struct ch_conn c;
	struct strbuf answer, why;
};

static void client_open(struct client *k, const char *host, unsigned port, const char *user,
			const char *password)
{
	char text[128], why[256];
	struct ch_url u;
	snprintf(text, sizeof(text), "clickhouse://%s:%u/db", host, port);
	cr_assert(ch_url_parse(text, &u, why, sizeof(why)), "%s", why);
	struct ch_credentials cred = {0};
	snprintf(cred.user, sizeof(cred.user), "%s", user);
	snprintf(cred.password, sizeof(cred.password), "%s", password);
	cr_assert(ch_conn_init(&k->c, &u, &cred));
	sb_init(&k->answer);
	sb_init(&k->why);
}

static bool post(struct client *k, const char *query)
{
	sb_reset(&k->why);
	return ch_post(&k->c, query, NULL, 0, false, &k->answer, &k->why);
}

static void client_close(struct client *k)
{
	ch_conn_free(&k->c);
	sb_free(&k->answer);
	sb_free(&k->why);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

#define OK_CHUNKED "HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nTransfer-Encoding: chunked\r\n\r\n" \
		   "3\r\none\r\n0\r\n\r\n"
#define OK_LENGTH(body) "HTTP/1.1 200 OK\r\nContent-Length: " #body "\r\n\r\n"

Test(ch_client, one_connection_for_several_requests)
{
	struct server s;
	struct step steps[] = {{OK_CHUNKED, KEEP}, {OK_LENGTH(3) "two", KEEP}, {OK_CHUNKED, KEEP}};
	cr_assert(server_start(&s, AF_INET, steps, 3));
	struct client k;
	client_open(&k, "127.0.0.1", s.port, "agent", "s3cret");
	cr_assert(post(&k, "SELECT 1"), "%s", k.why.s);
	cr_assert_str_eq(k.answer.s, "one");
	cr_assert(ch_post(&k.c, "INSERT INTO db.t FORMAT RowBinary", "\x1f\x8b body", 7, true, &k.answer,
			  &k.why), "%s", k.why.s);
	cr_assert_str_eq(k.answer.s, "two");
	cr_assert(post(&k, "SELECT 3"), "%s", k.why.s);
	client_close(&k);
	server_stop(&s);
	cr_assert_eq(s.connections, 1, "kept alive");
	cr_assert_eq(s.requests, 3);
	/* the query as the body; authentication as basic (agent:s3cret) */
	cr_assert(starts_with(s.request[0], "POST / HTTP/1.1\r\n"), "%s", s.request[0]);
	cr_assert(strstr(s.request[0], "\r\nAuthorization: Basic YWdlbnQ6czNjcmV0\r\n"));
	cr_assert(strstr(s.request[0], "\r\n\r\nSELECT 1"));
	cr_assert(strstr(s.request[0], "Content-Length: 8\r\n"));
	cr_assert_null(strstr(s.request[0], "Content-Encoding"));
	/* the query in the URL, the body gzip'd */
	cr_assert(starts_with(s.request[1], "POST /?query=INSERT%20INTO%20db.t%20FORMAT%20RowBinary HTTP/1.1\r\n"),
		  "%s", s.request[1]);
	cr_assert(strstr(s.request[1], "Content-Encoding: gzip\r\n"));
	cr_assert(strstr(s.request[1], "\r\n\r\n\x1f\x8b body"));
	cr_assert(strstr(s.request[1], "\r\nHost: 127.0.0.1:"));
}

Test(ch_client, a_new_connection_when_the_server_closed_the_old_one)
{
	/* first: closed after its answer without saying so; second: the request dropped unanswered
	 * on the kept connection (the server closed it as the request went out) */
	struct server s;
	struct step steps[] = {{OK_LENGTH(1) "a", CLOSE_AFTER}, {OK_LENGTH(1) "b", KEEP},
			       {NULL, DROP_REQUEST}, {OK_LENGTH(1) "c", KEEP}};
	cr_assert(server_start(&s, AF_INET, steps, 4));
	struct client k;
	client_open(&k, "127.0.0.1", s.port, "", "");
	cr_assert(post(&k, "SELECT 'a'"), "%s", k.why.s);
	usleep(50000); /* the close reaches the client */
	cr_assert(post(&k, "SELECT 'b'"), "%s", k.why.s);
	cr_assert_str_eq(k.answer.s, "b");
	cr_assert(post(&k, "SELECT 'c'"), "%s", k.why.s);
	cr_assert_str_eq(k.answer.s, "c");
	client_close(&k);
	server_stop(&s);
	cr_assert_eq(s.connections, 3);
	cr_assert_eq(s.requests, 4, "the dropped request was sent once more");
	cr_assert_null(strstr(s.request[0], "Authorization"), "no credentials: none sent");
}

Test(ch_client, a_server_that_never_answers_times_out_as_unreachable)
{
	struct server s;
	struct step steps[] = {{NULL, NEVER_ANSWER}};
	cr_assert(server_start(&s, AF_INET, steps, 1));
	struct client k;
	client_open(&k, "127.0.0.1", s.port, "", "");
	k.c.timeout_ms = 300;
	uint64_t t0 = now_ns();
	cr_assert_not(post(&k, "SELECT sleep(3)"));
	double ms = (double)(now_ns() - t0) / 1e6;
	cr_assert(ms >= 290 && ms < 2000, "gave up after %.0f ms", ms);
	cr_assert(k.c.unreachable);
	cr_assert(strstr(k.why.s, "no answer in time"), "%s", k.why.s);
	client_close(&k);
	server_stop(&s);
}

Test(ch_client, refused_connections_are_unreachable)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, len), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd); /* a port nothing listens on */
	struct client k;
	client_open(&k, "127.0.0.1", ntohs(a.sin_port), "", "");
	cr_assert_not(post(&k, "SELECT 1"));
	cr_assert(k.c.unreachable);
	cr_assert(strstr(k.why.s, "connection refused"), "%s", k.why.s);
	cr_assert(strstr(k.c.unreachable_why, "connection refused"));
	cr_assert_null(strchr(k.why.s, '\n'));
	client_close(&k);
}

Test(ch_client, error_statuses_and_answers_that_are_not_http)
{
	struct server s;
	struct step steps[] = {
		{"HTTP/1.1 516 Unknown\r\nContent-Length: 73\r\n\r\n"
		 "Code: 516, e.displayText() = DB::Exception: agent: Authentication failed\n", KEEP},
		{"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
		 "13\r\nCode: 60, e.display\r\n0\r\n\r\n", KEEP},
		{"SSH-2.0-OpenSSH_9.2\r\n", CLOSE_AFTER},
	};
	cr_assert(server_start(&s, AF_INET, steps, 3));
	struct client k;
	client_open(&k, "127.0.0.1", s.port, "agent", "wrong");
	cr_assert_not(post(&k, "SELECT 1"));
	cr_assert(strstr(k.why.s, "refused the credentials"), "%s", k.why.s);
	cr_assert(strstr(k.why.s, "answered HTTP 516: Code: 516"), "%s", k.why.s);
	cr_assert_not(k.c.unreachable);
	cr_assert_not(post(&k, "SELECT 1"));
	cr_assert(strstr(k.why.s, "answered HTTP 500: Code: 60, e.display"), "%s", k.why.s);
	cr_assert_not(post(&k, "SELECT 1"));
	cr_assert(strstr(k.why.s, "is not HTTP as expected"), "%s", k.why.s);
	cr_assert_not(k.c.unreachable, "a server that answers wrongly is not waited for");
	cr_assert_eq(s.connections, 1);
	client_close(&k);
	server_stop(&s);
}

Test(ch_client, an_ipv6_literal)
{
	struct server s;
	struct step steps[] = {{OK_LENGTH(2) "v6", KEEP}};
	if (!server_start(&s, AF_INET6, steps, 1))
		cr_skip_test("no IPv6 loopback here: %s", strerror(errno));
	struct client k;
	client_open(&k, "[::1]", s.port, "", "");
	cr_assert(post(&k, "SELECT 1"), "%s", k.why.s);
	cr_assert_str_eq(k.answer.s, "v6");
	client_close(&k);
	server_stop(&s);
	cr_assert(strstr(s.request[0], "\r\nHost: [::1]:"), "%s", s.request[0]);
}
