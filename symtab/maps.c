/* maps.c — parse and query a process's memory map. */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../util/interval.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"

void maps_init(struct maps *m)
{
	memset(m, 0, sizeof(*m));
}

void maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	maps_init(m);
}

void maps_add(struct maps *m, const struct mapping *e)
{
	XGROW(m->v, m->cap, m->n + 1);
	m->v[m->n] = *e;
	m->v[m->n].path = e->path ? xstrdup(e->path) : NULL;
	m->n++;
}

static int cmp_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

void maps_sort(struct maps *m)
{
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_start);
}

static bool parse_line(const char *line, struct mapping *e, char *pathbuf, size_t pathcap)
{
	char perms[8] = {0};
	uint64_t start, end, pgoff, inode;
	unsigned dmaj, dmin;
	int consumed = 0;
	/* (no space after the inode: a space in a scanf format matches newlines too, and would take
	 * the next line for the path of a mapping that has none) */
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n", &start, &end,
		   perms, &pgoff, &dmaj, &dmin, &inode, &consumed) < 7)
		return false;
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->end = end;
	e->pgoff = pgoff;
	e->inode = inode;
	e->dev = inode ? (uint64_t)makedev(dmaj, dmin) : 0;
	e->prot = (perms[0] == 'r' ? MAP_R : 0) | (perms[1] == 'w' ? MAP_W : 0) |
		  (perms[2] == 'x' ? MAP_X : 0);
	/* (the format's trailing space also skips a newline: an anonymous mapping's line ends
	 * before what it consumed, and its path is not the next line's text) */
	if ((size_t)consumed > strcspn(line, "\n"))
		return true;
	const char *p = line + consumed;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t len = strcspn(p, "\n");
	if (len == 0)
		return true;
	if (len >= pathcap)
		len = pathcap - 1;
	memcpy(pathbuf, p, len);
	pathbuf[len] = 0;
	const char *del = " (deleted)";
	size_t dl = strlen(del);
	if (len > dl && strcmp(pathbuf + len - dl, del) == 0) {
		pathbuf[len - dl] = 0;
		e->deleted = true;
	}
	e->path = pathbuf;
	return true;
}

size_t maps_parse(const char *text, struct maps *out)
{
	char path[4096];
	size_t added = 0;
	const char *line = text;
	while (line && *line) {
		struct mapping e;
		if (parse_line(line, &e, path, sizeof(path))) {
			maps_add(out, &e);
			added++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	maps_sort(out);
	return added;
}

int maps_read_proc(pid_t pid, struct maps *out)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	int fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct strbuf b;
	sb_init(&b);
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_addn(&b, buf, (size_t)n);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (!err) {
		maps_free(out);
		maps_parse(b.s ? b.s : "", out);
		if (out->n == 0)
			err = -ESRCH;
	}
	sb_free(&b);
	return err;
}

const struct mapping *maps_find(const struct maps *m, uint64_t addr)
{
	size_t i = interval_upper(m->v, m->n, sizeof(*m->v), offsetof(struct mapping, end), addr);
	return i < m->n && m->v[i].start <= addr ? &m->v[i] : NULL;
}

const struct mapping *maps_find_near(const struct maps *m, const struct mapping *near, uint64_t addr)
{
	return near && addr >= near->start && addr < near->end ? near : maps_find(m, addr);
}
