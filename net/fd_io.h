/* fd_io.h — one send or receive on a non-blocking socket, waiting for it at most until a
 * deadline (CLOCK_MONOTONIC nanoseconds, util/clock.h); sends never raise SIGPIPE. */
#ifndef V8WALK_FD_IO_H
#define V8WALK_FD_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net_error.h"

/* Bytes sent (> 0), or -1 with *kind NET_TIMEOUT or NET_IO (errno says why). */
ssize_t fd_send_by(int fd, const void *p, size_t n, uint64_t deadline_ns, enum net_fail *kind);
/* Bytes received (> 0), 0 at the peer's close, or -1 with *kind NET_TIMEOUT or NET_IO. */
ssize_t fd_recv_by(int fd, void *p, size_t n, uint64_t deadline_ns, enum net_fail *kind);
/* Wait until fd is ready for `events` (POLLIN, POLLOUT) or the deadline: 1 ready, 0 timed out,
 * -1 failed. */
int fd_wait_by(int fd, short events, uint64_t deadline_ns);

#endif
