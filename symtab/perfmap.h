/* perfmap.h — names from a target's perf map (/tmp/perf-PID.map, written by node
 * --perf-basic-prof: hex `START SIZE name` lines), for JIT code the heap cannot name (regexp
 * code, stubs, code whose objects are gone). The file is the target's own: its /tmp seen through
 * /proc/PID/root, named with its namespace pid. It is used only when it is a regular file (not a
 * symlink) owned by the target's user or root. When code is replaced the map gets a new line
 * for the same addresses: the last line for an address wins. The file is re-read as it grows,
 * a bounded number of bytes per look and in all (`cut` says when the bound was reached). */
#ifndef V8WALK_PERFMAP_H
#define V8WALK_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../util/strbuf.h"

/* Bounds on what one perf map may cost (bytes read per look, in all, lines kept). */
#define PERFMAP_PASS_BYTES (4ULL << 20)
#define PERFMAP_MAX_BYTES (64ULL << 20)
#define PERFMAP_MAX_ENTRIES ((size_t)1 << 20)

struct perfmap_entry {
	uint64_t start, end;
	uint64_t name_off; /* into names */
	uint32_t seq;      /* line number: later lines win */
};

struct perfmap {
	struct intern *strings;
	char root[32];           /* /proc/PID/root: path is resolved inside it ("" = as is) */
	char path[128];          /* /tmp/perf-NSPID.map ("" = use no file) */
	uid_t owner;             /* the target's user */
	int fd;                  /* -1 until opened */
	uint64_t dev, ino;       /* of the open file */
	uint64_t parsed;         /* bytes consumed (whole lines) */
	struct strbuf names;     /* NUL-separated names */
	struct perfmap_entry *v; /* sorted by start (then seq) when `sorted` */
	uint64_t *max_end;       /* max_end[i] = largest end among v[0..i] */
	size_t n, cap;
	bool sorted;
	uint32_t seq;
	uint64_t last_check_ns;  /* the file is looked at again at most every RECHECK_NS */
	const char *refused;     /* why the file is not used (symlink, owner), or NULL */
	uint64_t pass_bytes, max_bytes; /* read bounds (PERFMAP_*; tests lower them) */
	size_t max_entries;
	bool cut;                /* a bound was reached: lines past `parsed` are not used */
	unsigned long lookups, hits;
};

/* For a live process: finds its namespace pid and user (nothing is opened yet). */
void perfmap_init(struct perfmap *pm, pid_t pid, struct intern *strings);
/* For a given file and owner (tests). */
void perfmap_init_path(struct perfmap *pm, const char *path, uid_t owner, struct intern *strings);
void perfmap_free(struct perfmap *pm);
/* The interned name of the code at addr, or 0. Opens or re-reads the file when it appeared or
 * grew (at most every RECHECK_NS). */
uint32_t perfmap_lookup(struct perfmap *pm, uint64_t addr);
/* Add the complete lines of a chunk of map text; returns the bytes consumed. */
size_t perfmap_parse(struct perfmap *pm, const char *text, size_t len);

#endif
