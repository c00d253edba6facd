/* safe_open.c — opening files named by a target or a core without trusting the name. */
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "it is a FIFO, not a regular file";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "it is a device, not a regular file";
	if (S_ISSOCK(mode))
		return "it is a socket, not a regular file";
	if (S_ISDIR(mode))
		return "it is a directory, not a regular file";
	return "it is not a regular file";
}

static const char *open_errno(int e)
{
	switch (e) {
	case ENOENT: case ENOTDIR: return "no such file";
	case ELOOP: return "it is a symbolic link";
	case EXDEV: return "its path leads out of the target's root";
	case EACCES: case EPERM: return "permission denied";
	default: return "cannot open file";
	}
}

/* Inside root with openat2 where the kernel has it; -2 when it does not. */
static int open_in_root(const char *root, const char *path, int flags)
{
	int dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	struct open_how how = {.flags = (uint64_t)flags,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	int saved = errno;
	close(dirfd);
	errno = saved;
	if (fd < 0 && (errno == ENOSYS || errno == E2BIG))
		return -2;
	return fd;
}

int safe_open(const char *path, const struct file_expect *ex, struct stat *st, const char **err)
{
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (ex->follow ? 0 : O_NOFOLLOW);
	int fd = -2;
	if (ex->root && ex->root[0])
		fd = open_in_root(ex->root, path, flags);
	if (fd == -2) { /* no root, or no openat2: the identity check below still holds */
		char joined[4352];
		const char *p = path;
		if (ex->root && ex->root[0]) {
			if (snprintf(joined, sizeof(joined), "%s%s", ex->root, path) >= (int)sizeof(joined)) {
				*err = "its path is too long";
				return -1;
			}
			p = joined;
		}
		fd = open(p, flags);
	}
	if (fd < 0) {
		*err = open_errno(errno);
		return -1;
	}
	const char *why = NULL;
	if (fstat(fd, st) != 0)
		why = "cannot stat the open file";
	else if (!S_ISREG(st->st_mode))
		why = kind_of(st->st_mode);
	else if ((ex->ino && (uint64_t)st->st_ino != ex->ino) || (ex->dev && (uint64_t)st->st_dev != ex->dev))
		why = "it is not the file the process mapped (replaced since)";
	else if (ex->max_size && (uint64_t)st->st_size > ex->max_size)
		why = "it is larger than any file v8walk reads";
	if (why) {
		close(fd);
		*err = why;
		return -1;
	}
	return fd;
}
