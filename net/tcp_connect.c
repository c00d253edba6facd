/* tcp_connect.c — connecting to one of several addresses by a deadline (tcp_connect.h). */
#include "tcp_connect.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../util/clock.h"
#include "fd_io.h"

/* One address: 0 connected, else the errno (ETIMEDOUT when by passed). */
static int connect_one(const struct net_addr *a, unsigned port, uint64_t by, int *fd_out)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		memcpy(&s->sin_addr, a->a, 4);
		len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		memcpy(&s->sin6_addr, a->a, 16);
		len = sizeof(*s);
	}
	int fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	int e = 0;
	if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		e = errno;
		if (e == EINPROGRESS || e == EINTR) {
			int r = fd_wait_by(fd, POLLOUT, by);
			socklen_t el = sizeof(e);
			if (r == 0)
				e = ETIMEDOUT;
			else if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
				e = errno;
		}
	}
	if (e) {
		close(fd);
		return e;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*fd_out = fd;
	return 0;
}

int tcp_connect(const struct addr_list *addrs, unsigned port, uint64_t deadline_ns,
		const char *what, struct net_error *err)
{
	int e = ENOENT;
	char text[64] = "";
	for (size_t i = 0; i < addrs->n; i++) {
		uint64_t now = now_ns();
		if (now >= deadline_ns) {
			e = ETIMEDOUT;
			break;
		}
		/* the time left, shared among the addresses left */
		uint64_t by = now + (deadline_ns - now) / (addrs->n - i);
		int fd = -1;
		net_addr_text(&addrs->v[i], text, sizeof(text));
		e = connect_one(&addrs->v[i], port, by, &fd);
		if (!e)
			return fd;
	}
	if (e == ETIMEDOUT)
		net_fail(err, NET_CONNECT, "cannot connect to %s (%s): no answer in time", what, text);
	else
		net_fail(err, NET_CONNECT, "cannot connect to %s (%s): %s", what, text,
			 e == ECONNREFUSED ? "connection refused" : strerror(e));
	return -1;
}
