/* fd_room.c — the ceiling under which per-thread descriptors are kept (fd_room.h). */
#include "fd_room.h"

#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

int fd_ceiling(int spare)
{
	struct rlimit l;
	if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur == RLIM_INFINITY || l.rlim_cur > INT_MAX)
		return INT_MAX;
	return (int)l.rlim_cur > spare ? (int)l.rlim_cur - spare : 0;
}

int fd_below(int fd, int ceiling)
{
	if (fd < ceiling)
		return fd;
	close(fd);
	errno = EMFILE;
	return -1;
}
