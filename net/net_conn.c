/* net_conn.c — plain or TLS client connections (net_conn.h). */
#include "net_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd_io.h"
#include "resolve.h"
#include "tcp_connect.h"

void net_conn_init(struct net_conn *c)
{
	c->fd = -1;
	c->tls = NULL;
}

bool net_conn_is_open(const struct net_conn *c)
{
	return c->fd >= 0;
}

bool net_conn_open(struct net_conn *c, const struct net_target *t, uint64_t connect_by_ns,
		   uint64_t deadline_ns, struct net_error *err)
{
	net_conn_close(c);
	struct addr_list addrs;
	if (!net_resolve(t->host, t->hosts_file, &addrs, err))
		return false;
	char what[300];
	snprintf(what, sizeof(what), "%s:%u", t->host, t->port);
	c->fd = tcp_connect(&addrs, t->port, connect_by_ns < deadline_ns ? connect_by_ns : deadline_ns,
			    what, err);
	if (c->fd < 0)
		return false;
	if (t->tls) {
		c->tls = tls_session_start(t->tls, c->fd, t->host, deadline_ns, err);
		if (!c->tls) {
			net_conn_close(c);
			return false;
		}
	}
	return true;
}

static bool io_failed(struct net_error *err, enum net_fail kind, const char *during)
{
	if (kind == NET_TIMEOUT)
		return net_fail(err, NET_TIMEOUT, "no answer in time %s", during);
	return net_fail(err, NET_IO, "the connection broke %s (%s)", during, strerror(errno));
}

static bool send_all(int fd, const char *p, size_t n, uint64_t deadline_ns, struct net_error *err)
{
	while (n) {
		enum net_fail kind = NET_OK;
		ssize_t w = fd_send_by(fd, p, n, deadline_ns, &kind);
		if (w < 0)
			return io_failed(err, kind, "while sending");
		p += w;
		n -= (size_t)w;
	}
	return true;
}

bool net_conn_write2(struct net_conn *c, const void *a, size_t alen, const void *b, size_t blen,
		     uint64_t deadline_ns, struct net_error *err)
{
	if (c->tls)
		return tls_session_send(c->tls, a, alen, deadline_ns, err) &&
		       (!blen || tls_session_send(c->tls, b, blen, deadline_ns, err));
	/* plain: both parts in one system call when the socket takes them */
	struct iovec iov[2] = {{.iov_base = (void *)a, .iov_len = alen},
			       {.iov_base = (void *)b, .iov_len = blen}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = blen ? 2 : 1};
	ssize_t w;
	do
		w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return io_failed(err, NET_IO, "while sending");
	size_t sent = w < 0 ? 0 : (size_t)w;
	if (sent < alen)
		return send_all(c->fd, (const char *)a + sent, alen - sent, deadline_ns, err) &&
		       send_all(c->fd, b, blen, deadline_ns, err);
	sent -= alen;
	return send_all(c->fd, (const char *)b + sent, blen - sent, deadline_ns, err);
}

ssize_t net_conn_read(struct net_conn *c, void *buf, size_t cap, uint64_t deadline_ns,
		      struct net_error *err)
{
	if (c->tls)
		return tls_session_recv(c->tls, buf, cap, deadline_ns, err);
	enum net_fail kind = NET_OK;
	ssize_t n = fd_recv_by(c->fd, buf, cap, deadline_ns, &kind);
	if (n < 0)
		io_failed(err, kind, "while receiving");
	return n;
}

bool net_conn_idle_broken(const struct net_conn *c)
{
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	int r;
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	return r != 0; /* readable (EOF, a reset, a close_notify or stray bytes), or poll failed */
}

void net_conn_close(struct net_conn *c)
{
	tls_session_free(c->tls);
	c->tls = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
