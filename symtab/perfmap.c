/* perfmap.c — reading a perf map safely and incrementally, and looking addresses up in it. */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/proc_status.h"
#include "../util/safe_open.h"
#include "../util/interval.h"
#include "../util/xalloc.h"

enum {
	RECHECK_NS = 200 * 1000 * 1000,
	READ_CHUNK = 1 << 20,
	MAX_LINE = 4096, /* a longer line is skipped */
};

static void init_common(struct perfmap *pm, struct intern *strings)
{
	memset(pm, 0, sizeof(*pm));
	pm->strings = strings;
	pm->fd = -1;
	pm->pass_bytes = PERFMAP_PASS_BYTES;
	pm->max_bytes = PERFMAP_MAX_BYTES;
	pm->max_entries = PERFMAP_MAX_ENTRIES;
	sb_init(&pm->names);
	intern_str(strings, ""); /* id 0 means "no name": make sure no map name gets it */
}

void perfmap_init(struct perfmap *pm, pid_t pid, struct intern *strings)
{
	init_common(pm, strings);
	char who[32], v[256];
	snprintf(who, sizeof(who), "%d", (int)pid);
	/* the pid inside the target's own pid namespace: the last NSpid field */
	long nspid = pid;
	if (proc_status_field(who, "NSpid", v, sizeof(v))) {
		char *last = strrchr(v, '\t');
		nspid = strtol(last ? last + 1 : v, NULL, 10);
		if (nspid <= 0)
			nspid = pid;
	}
	/* resolved inside the target's root: no symlink there leads out of it */
	snprintf(pm->root, sizeof(pm->root), "/proc/%d/root", (int)pid);
	snprintf(pm->path, sizeof(pm->path), "/tmp/perf-%ld.map", nspid);
	struct stat st;
	snprintf(v, sizeof(v), "/proc/%d", (int)pid);
	pm->owner = stat(v, &st) == 0 ? st.st_uid : 0;
}

void perfmap_init_path(struct perfmap *pm, const char *path, uid_t owner, struct intern *strings)
{
	init_common(pm, strings);
	snprintf(pm->path, sizeof(pm->path), "%s", path);
	pm->owner = owner;
}

void perfmap_free(struct perfmap *pm)
{
	if (pm->fd >= 0)
		close(pm->fd);
	sb_free(&pm->names);
	free(pm->v);
	free(pm->max_end);
	pm->v = NULL;
	pm->max_end = NULL;
	pm->n = pm->cap = 0;
	pm->fd = -1;
}

static void forget_entries(struct perfmap *pm)
{
	pm->cut = false;
	pm->n = 0;
	pm->parsed = 0;
	pm->seq = 0;
	sb_reset(&pm->names);
	pm->sorted = false;
}

static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	const char *start = s;
	for (; s < end; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (s == start)
		return false;
	*out = v;
	*p = s;
	return true;
}

/* One line "START SIZE name" (hex, hex, rest of the line); malformed lines are skipped. */
static void parse_line(struct perfmap *pm, const char *s, const char *end)
{
	uint64_t start, size;
	if (!parse_hex(&s, end, &start) || s >= end || *s != ' ')
		return;
	s++;
	if (!parse_hex(&s, end, &size) || s >= end || *s != ' ' || size == 0 ||
	    start + size < start)
		return;
	s++;
	if (s >= end)
		return;
	if (pm->n >= pm->max_entries) {
		pm->cut = true;
		return;
	}
	XGROW(pm->v, pm->cap, pm->n + 1);
	pm->v[pm->n++] = (struct perfmap_entry){.start = start, .end = start + size,
						.seq = ++pm->seq, .name_off = pm->names.len};
	sb_addn(&pm->names, s, (size_t)(end - s));
	sb_addc(&pm->names, '\0');
	pm->sorted = false;
}

size_t perfmap_parse(struct perfmap *pm, const char *text, size_t len)
{
	size_t used = 0;
	while (used < len) {
		const char *nl = memchr(text + used, '\n', len - used);
		if (!nl)
			break;
		size_t linelen = (size_t)(nl - (text + used));
		if (linelen < MAX_LINE)
			parse_line(pm, text + used, nl);
		used += linelen + 1;
	}
	return used;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_entries(struct perfmap *pm)
{
	if (pm->n)
		qsort(pm->v, pm->n, sizeof(*pm->v), cmp_entry);
	pm->max_end = xrealloc(pm->max_end, (pm->n ? pm->n : 1) * sizeof(*pm->max_end));
	uint64_t m = 0;
	for (size_t i = 0; i < pm->n; i++) {
		if (pm->v[i].end > m)
			m = pm->v[i].end;
		pm->max_end[i] = m;
	}
	pm->sorted = true;
}

/* Open the map if it is safe to read: a regular file, not a symlink, owned by the target's user
 * or root. */
static bool open_map(struct perfmap *pm)
{
	struct stat st;
	const char *why = NULL;
	int fd = safe_open(pm->path, &(struct file_expect){.root = pm->root}, &st, &why);
	if (fd < 0) {
		if (strcmp(why, "no such file") != 0)
			pm->refused = why;
		return false;
	}
	if (st.st_uid != 0 && st.st_uid != pm->owner) {
		pm->refused = "it is owned by another user than the process";
		close(fd);
		return false;
	}
	pm->refused = NULL;
	pm->fd = fd;
	pm->dev = (uint64_t)st.st_dev;
	pm->ino = (uint64_t)st.st_ino;
	forget_entries(pm);
	return true;
}

/* Read what was appended since the last look (whole lines only), at most PERFMAP_PASS_BYTES per
 * look (the sampling loop never stalls on a huge or sparse file) and PERFMAP_MAX_BYTES or
 * PERFMAP_MAX_ENTRIES in all (then the map is cut: later lines are not used). */
static void read_more(struct perfmap *pm)
{
	struct stat st;
	if (fstat(pm->fd, &st) != 0)
		return;
	if ((uint64_t)st.st_size < pm->parsed)
		forget_entries(pm); /* truncated and rewritten */
	if (pm->cut)
		return;
	char *buf = xmalloc(READ_CHUNK);
	size_t have = 0;
	uint64_t pass = 0;
	while (pass < pm->pass_bytes) {
		if (pm->parsed >= pm->max_bytes || pm->n >= pm->max_entries) {
			pm->cut = true;
			break;
		}
		uint64_t room = pm->max_bytes - pm->parsed - have;
		if (pm->pass_bytes - pass < room)
			room = pm->pass_bytes - pass;
		size_t want = READ_CHUNK - have < room ? READ_CHUNK - have : (size_t)room;
		ssize_t got = want ? pread(pm->fd, buf + have, want, (off_t)(pm->parsed + have)) : 0;
		if (got <= 0) {
			if (want == 0 && have && pm->parsed + have >= pm->max_bytes)
				pm->cut = true; /* the total bound falls inside a line */
			break;
		}
		pass += (uint64_t)got;
		have += (size_t)got;
		size_t used = perfmap_parse(pm, buf, have);
		if (used == 0 && have == READ_CHUNK)
			used = have; /* one enormous line (or a hole of zeros): skip it */
		pm->parsed += used;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
}

/* Open or re-read the file when it is time to look again. */
static void refresh(struct perfmap *pm)
{
	uint64_t now = now_ns();
	if (!pm->path[0] || (pm->last_check_ns && now - pm->last_check_ns < RECHECK_NS))
		return;
	pm->last_check_ns = now;
	struct stat st;
	char full[sizeof(pm->root) + sizeof(pm->path)];
	snprintf(full, sizeof(full), "%s%s", pm->root, pm->path);
	if (pm->fd >= 0 &&
	    (stat(full, &st) != 0 || (uint64_t)st.st_ino != pm->ino || (uint64_t)st.st_dev != pm->dev)) {
		close(pm->fd); /* deleted or replaced: the new file is checked afresh */
		pm->fd = -1;
		forget_entries(pm);
	}
	if (pm->fd < 0 && !open_map(pm))
		return;
	read_more(pm);
}

uint32_t perfmap_lookup(struct perfmap *pm, uint64_t addr)
{
	pm->lookups++;
	refresh(pm);
	if (pm->n == 0)
		return 0;
	if (!pm->sorted)
		sort_entries(pm);
	/* the last entry starting at or below addr, then back while an earlier one could reach */
	size_t lo = interval_upper(pm->v, pm->n, sizeof(*pm->v), offsetof(struct perfmap_entry, start),
				   addr);
	const struct perfmap_entry *best = NULL;
	for (size_t i = lo; i-- > 0 && pm->max_end[i] > addr;) {
		const struct perfmap_entry *e = &pm->v[i];
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return 0;
	pm->hits++;
	return intern_str(pm->strings, pm->names.s + best->name_off);
}
