/* safe_read.c — openat2(RESOLVE_IN_ROOT) under the root, then fstat and a bounded read. */
#include "safe_read.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_in_root(int rootfd, const char *path)
{
	while (*path == '/')
		path++;
	if (!*path) {
		errno = EISDIR;
		return -1;
	}
	struct open_how how = {
	    .flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		/* kernels before 5.6: the path has no dot segments (resolved by the caller); a
		 * symlink in a directory component may still point elsewhere */
		fd = openat(rootfd, path, (int)how.flags);
	}
	return fd;
}

enum sm_read_result sm_read_file(const char *root, const char *path, size_t max_bytes,
				 struct strbuf *out, const char **why)
{
	int rootfd = open(root && *root ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		*why = "the target's root directory cannot be opened";
		return SR_UNREADABLE;
	}
	int fd = open_in_root(rootfd, path);
	int err = errno;
	close(rootfd);
	if (fd < 0) {
		*why = err == ENOENT || err == ENOTDIR ? "no such file" :
		       err == ELOOP ? "the map file is a symlink" : "the map file cannot be opened";
		return err == ENOENT || err == ENOTDIR ? SR_MISSING : SR_UNREADABLE;
	}
	struct stat st;
	enum sm_read_result r = SR_OK;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "the map is not a regular file";
		r = SR_UNREADABLE;
	} else if ((uint64_t)st.st_size > max_bytes) {
		*why = "the map file is too large";
		r = SR_TOO_LARGE;
	}
	size_t got = 0;
	while (r == SR_OK) {
		char buf[65536];
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = "the map file cannot be read";
			r = SR_UNREADABLE;
		} else if (n == 0) {
			break;
		} else if (got + (size_t)n > max_bytes) {
			*why = "the map file is too large";
			r = SR_TOO_LARGE;
		} else {
			sb_addn(out, buf, (size_t)n);
			got += (size_t)n;
		}
	}
	close(fd);
	return r;
}
