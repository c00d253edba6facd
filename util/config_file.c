/* config_file.c — reading a host configuration file whole, bounded (config_file.h). */
#include "config_file.h"

#include <errno.h>
#include <unistd.h>

#include "safe_open.h"

bool config_file_read(const char *path, size_t max, struct strbuf *out)
{
	struct file_expect ex = {.max_size = max, .follow = true};
	struct stat st;
	const char *err;
	int fd = safe_open(path, &ex, &st, &err);
	if (fd < 0)
		return false;
	size_t got = 0;
	bool ok = true;
	while (got < max) {
		size_t want = max - got < 65536 ? max - got : 65536;
		char *room = sb_room(out, want);
		ssize_t n = read(fd, room, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ok = false;
		if (n <= 0)
			break;
		out->len += (size_t)n;
		out->s[out->len] = 0;
		got += (size_t)n;
	}
	close(fd);
	return ok;
}
