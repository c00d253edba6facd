/* container_id.c — a process's container id from its cgroup paths (container_id.h). */
#include "container_id.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/xalloc.h"

enum { CGROUP_FILE_MAX = 64 << 10 };

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool has(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= len; i++)
		if (!memcmp(s + i, word, wl))
			return true;
	return false;
}

/* One path component: "ID", "PREFIX-ID" or either with ".scope"; the id into out. */
static bool component_id(const char *c, size_t len, char *out)
{
	static const char scope[] = ".scope";
	size_t sl = sizeof(scope) - 1;
	if (len > sl && !memcmp(c + len - sl, scope, sl))
		len -= sl;
	if (len < CONTAINER_ID_LEN)
		return false;
	const char *id = c + len - CONTAINER_ID_LEN;
	if (len > CONTAINER_ID_LEN && id[-1] != '-')
		return false;
	for (size_t i = 0; i < CONTAINER_ID_LEN; i++)
		if (!is_hex(id[i]))
			return false;
	/* the container monitors' own cgroups: libpod-conmon-ID.scope, crio-conmon-ID.scope */
	if (has(c, len - CONTAINER_ID_LEN, "conmon"))
		return false;
	memcpy(out, id, CONTAINER_ID_LEN);
	out[CONTAINER_ID_LEN] = 0;
	return true;
}

/* The innermost id in a cgroup path (path[0..len)). */
static bool path_id(const char *path, size_t len, char *out)
{
	bool found = false;
	for (size_t i = 0; i < len;) {
		const char *slash = memchr(path + i, '/', len - i);
		size_t end = slash ? (size_t)(slash - path) : len;
		found = component_id(path + i, end - i, out) || found;
		i = end + 1;
	}
	return found;
}

/* The path of a line "HIERARCHY:CONTROLLERS:PATH" (line[0..len), no newline); v2: hierarchy 0 and
 * no controllers. */
static bool line_path(const char *line, size_t len, const char **path, size_t *plen, bool *v2)
{
	const char *c1 = memchr(line, ':', len);
	if (!c1)
		return false;
	const char *c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line));
	if (!c2)
		return false;
	*v2 = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
	*path = c2 + 1;
	*plen = len - (size_t)(c2 + 1 - line);
	return true;
}

/* The first line of the wanted kind (v2 or v1) whose path names an id. */
static bool scan(const char *text, size_t len, bool want_v2, char *out)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *path;
		size_t plen;
		bool v2;
		if (line_path(text + i, end - i, &path, &plen, &v2) && v2 == want_v2 &&
		    path_id(path, plen, out))
			return true;
		i = end + 1;
	}
	return false;
}

bool container_id_parse(const char *text, size_t len, char *out)
{
	return scan(text, len, true, out) || scan(text, len, false, out);
}

bool container_short_id(pid_t pid, char *out, size_t cap)
{
	if (cap < CONTAINER_SHORT_LEN + 1)
		return false;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char *text = xmalloc(CGROUP_FILE_MAX);
	size_t got = 0;
	ssize_t r;
	while (got < CGROUP_FILE_MAX && (r = read(fd, text + got, CGROUP_FILE_MAX - got)) > 0)
		got += (size_t)r;
	close(fd);
	char id[CONTAINER_ID_LEN + 1];
	bool found = container_id_parse(text, got, id);
	free(text);
	if (!found)
		return false;
	memcpy(out, id, CONTAINER_SHORT_LEN);
	out[CONTAINER_SHORT_LEN] = 0;
	return true;
}

uint32_t container_of_pid(struct intern *strings, pid_t pid)
{
	char id[CONTAINER_SHORT_LEN + 1];
	return container_short_id(pid, id, sizeof(id)) ? intern_str(strings, id) + 1 : 0;
}
