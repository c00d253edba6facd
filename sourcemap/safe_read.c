/* safe_read.c — a bounded read of a file opened by util/safe_open.c (inside the root, no symlink at
 * the end, never blocking, a regular file only): the source-map side of the one way v8walk opens a
 * file a target names. */
#include "safe_read.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/safe_open.h"

enum sm_read_result sm_read_file(const char *root, const char *path, size_t max_bytes,
				 struct strbuf *out, const char **why)
{
	struct file_expect ex = {.root = root};
	struct stat st;
	errno = 0;
	int fd = safe_open(path, &ex, &st, why);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? SR_MISSING : SR_UNREADABLE;
	enum sm_read_result r = SR_OK;
	if ((uint64_t)st.st_size > max_bytes) {
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
