/* fd_io.c — sends and receives bounded by a deadline (fd_io.h). */
#include "fd_io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include "../util/clock.h"

int fd_wait_by(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = now_ns();
		if (now >= deadline_ns)
			return 0;
		uint64_t ms = (deadline_ns - now + 999999) / 1000000;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, ms > 60000 ? 60000 : (int)ms);
		if (r > 0)
			return 1; /* ready, or an error or hang-up the next call reports */
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* One send (out) or receive, waiting for the socket to be ready as long as the deadline lets. */
static ssize_t io_by(int fd, void *p, size_t n, bool out, uint64_t deadline_ns, enum net_fail *kind)
{
	for (;;) {
		ssize_t r = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			*kind = NET_IO;
			return -1;
		}
		int ready = fd_wait_by(fd, out ? POLLOUT : POLLIN, deadline_ns);
		if (ready <= 0) {
			*kind = ready == 0 ? NET_TIMEOUT : NET_IO;
			if (ready == 0)
				errno = ETIMEDOUT;
			return -1;
		}
	}
}

ssize_t fd_send_by(int fd, const void *p, size_t n, uint64_t deadline_ns, enum net_fail *kind)
{
	return io_by(fd, (void *)p, n, true, deadline_ns, kind);
}

ssize_t fd_recv_by(int fd, void *p, size_t n, uint64_t deadline_ns, enum net_fail *kind)
{
	return io_by(fd, p, n, false, deadline_ns, kind);
}
