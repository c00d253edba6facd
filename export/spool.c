/* spool.c — the bounded spool directory of unsent periods (spool.h). */
#include "spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/text_escape.h"

#define SPOOL_MAGIC "V8WSPOOL2 "
#define SPOOL_MAGIC_OLD "V8WSPOOL1 " /* two bodies: no stalls */
#define SPOOL_SUFFIX ".v8wspool"
enum { SPOOL_NAME_DIGITS = 16, HEADER_MAX = 64 };

void spool_default_dir(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		snprintf(out, len, "%s/v8walk-spool", xdg);
	else
		snprintf(out, len, "/var/tmp/v8walk-spool");
}

bool spool_name_seq(const char *name, uint64_t *seq)
{
	if (strlen(name) != SPOOL_NAME_DIGITS + strlen(SPOOL_SUFFIX) ||
	    strcmp(name + SPOOL_NAME_DIGITS, SPOOL_SUFFIX) != 0)
		return false;
	uint64_t v = 0;
	for (int i = 0; i < SPOOL_NAME_DIGITS; i++) {
		char c = name[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*seq = v;
	return true;
}

size_t spool_over_limit(const struct spool_entry *e, size_t n, uint64_t max_bytes)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += e[i].bytes;
	size_t drop = 0;
	while (drop < n && total > max_bytes)
		total -= e[drop++].bytes;
	return drop;
}

static void path_of(const struct spool *s, uint64_t seq, const char *suffix, char *out, size_t len)
{
	snprintf(out, len, "%s/%016" PRIx64 "%s", s->dir, seq, suffix);
}

static int by_seq(const void *a, const void *b)
{
	const struct spool_entry *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t spool_list(const struct spool *s, struct spool_entry *out, size_t max)
{
	DIR *d = opendir(s->dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		uint64_t seq;
		struct stat st;
		if (!spool_name_seq(de->d_name, &seq) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		out[n++] = (struct spool_entry){.seq = seq, .bytes = (uint64_t)st.st_size};
	}
	closedir(d);
	qsort(out, n, sizeof(*out), by_seq);
	return n;
}

bool spool_open(struct spool *s, const char *dir, uint64_t max_bytes, struct strbuf *why)
{
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (strlen(dir) >= sizeof(s->dir)) {
		sb_add(why, "the spool directory's name is too long");
		return false;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->max_bytes = max_bytes;
	/* the parents too, as mkdir -p */
	for (char *p = s->dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(s->dir, 0700);
		*p = '/';
	}
	struct stat st;
	if ((mkdir(s->dir, 0700) != 0 && errno != EEXIST) || stat(s->dir, &st) != 0 ||
	    !S_ISDIR(st.st_mode) || access(s->dir, W_OK | X_OK) != 0) {
		sb_add(why, "cannot use the spool directory ");
		sb_add_escaped_str(why, s->dir);
		sb_printf(why, " (%s)", errno ? strerror(errno) : "not a writable directory");
		return false;
	}
	char lock[PATH_MAX];
	snprintf(lock, sizeof(lock), "%s/.lock", s->dir);
	s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		int err = errno;
		if (s->lock_fd >= 0)
			close(s->lock_fd);
		s->lock_fd = -1;
		sb_add(why, "the spool directory ");
		sb_add_escaped_str(why, s->dir);
		if (err == EWOULDBLOCK)
			sb_add(why, " is in use by another v8walk: give each agent its own --spool");
		else
			sb_printf(why, " cannot be locked (%s)", strerror(err));
		return false;
	}
	struct spool_entry *e = malloc(SPOOL_MAX_FILES * sizeof(*e));
	size_t n = e ? spool_list(s, e, SPOOL_MAX_FILES) : 0;
	s->next_seq = n ? e[n - 1].seq + 1 : 1;
	free(e);
	return true;
}

void spool_close(struct spool *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
}

/* Remove the oldest files while the directory is over its limit. */
static void enforce_limit(struct spool *s)
{
	struct spool_entry *e = malloc(SPOOL_MAX_FILES * sizeof(*e));
	if (!e)
		return;
	size_t n = spool_list(s, e, SPOOL_MAX_FILES);
	size_t drop = spool_over_limit(e, n, s->max_bytes);
	for (size_t i = 0; i < drop; i++) {
		spool_remove(s, e[i].seq);
		s->dropped++;
	}
	free(e);
}

bool spool_put(struct spool *s, const struct spool_bodies *b, struct strbuf *why)
{
	char tmp[PATH_MAX], final[PATH_MAX], header[HEADER_MAX];
	uint64_t seq = s->next_seq++;
	path_of(s, seq, ".tmp", tmp, sizeof(tmp));
	path_of(s, seq, SPOOL_SUFFIX, final, sizeof(final));
	int hl = snprintf(header, sizeof(header), SPOOL_MAGIC "%zu %zu %zu\n", b->len[SPOOL_STACKS],
			  b->len[SPOOL_SAMPLES], b->len[SPOOL_STALLS]);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	bool ok = fd >= 0;
	for (int i = -1; ok && i < SPOOL_BODIES; i++) {
		const char *p = i < 0 ? header : b->data[i];
		size_t len = i < 0 ? (size_t)hl : b->len[i];
		for (size_t off = 0; ok && off < len;) {
			ssize_t w = write(fd, p + off, len - off);
			ok = w > 0;
			off += ok ? (size_t)w : 0;
		}
	}
	int err = errno;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (ok && rename(tmp, final) != 0) {
		err = errno;
		ok = false;
	}
	if (!ok) {
		unlink(tmp);
		sb_add(why, "cannot write to the spool directory ");
		sb_add_escaped_str(why, s->dir);
		sb_printf(why, " (%s)", strerror(err));
		return false;
	}
	enforce_limit(s);
	return true;
}

bool spool_parse(const char *data, size_t len, size_t off[SPOOL_BODIES], size_t lens[SPOOL_BODIES])
{
	size_t magic = strlen(SPOOL_MAGIC);
	const char *nl = memchr(data, '\n', len < HEADER_MAX ? len : HEADER_MAX);
	if (!nl || len < magic)
		return false;
	int fields = !memcmp(data, SPOOL_MAGIC, magic)       ? SPOOL_BODIES
		     : !memcmp(data, SPOOL_MAGIC_OLD, magic) ? 2
							     : 0;
	if (!fields)
		return false;
	uint64_t v[SPOOL_BODIES] = {0};
	int field = 0;
	for (const char *p = data + magic; p < nl; p++) {
		if (*p == ' ' && p[-1] != ' ' && field + 1 < fields) {
			field++;
			continue;
		}
		if (*p < '0' || *p > '9' || v[field] > SPOOL_FILE_MAX / 10)
			return false;
		v[field] = v[field] * 10 + (uint64_t)(*p - '0');
	}
	size_t body = (size_t)(nl + 1 - data), at = body;
	if (field != fields - 1 || nl[-1] == ' ' || v[0] + v[1] + v[2] != len - body)
		return false;
	for (int i = 0; i < SPOOL_BODIES; i++) {
		off[i] = at;
		lens[i] = (size_t)v[i];
		at += (size_t)v[i];
	}
	return true;
}

bool spool_read(const struct spool *s, uint64_t seq, struct strbuf out[SPOOL_BODIES],
		struct strbuf *why)
{
	char path[PATH_MAX];
	path_of(s, seq, SPOOL_SUFFIX, path, sizeof(path));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SPOOL_FILE_MAX) {
		if (fd >= 0)
			close(fd);
		sb_printf(why, "spool file %016" PRIx64 SPOOL_SUFFIX " cannot be read or is too large", seq);
		return false;
	}
	struct strbuf data;
	sb_init(&data);
	char *dst = sb_room(&data, (size_t)st.st_size);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, dst + got, (size_t)st.st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	data.len = got;
	data.s[got] = 0;
	size_t off[SPOOL_BODIES], lens[SPOOL_BODIES];
	bool ok = spool_parse(data.s, data.len, off, lens);
	for (int i = 0; ok && i < SPOOL_BODIES; i++) {
		sb_reset(&out[i]);
		sb_addn(&out[i], data.s + off[i], lens[i]);
	}
	if (!ok)
		sb_printf(why, "spool file %016" PRIx64 SPOOL_SUFFIX " is damaged (its header or length is "
			  "wrong)", seq);
	sb_free(&data);
	return ok;
}

void spool_remove(const struct spool *s, uint64_t seq)
{
	char path[PATH_MAX];
	path_of(s, seq, SPOOL_SUFFIX, path, sizeof(path));
	unlink(path);
}
