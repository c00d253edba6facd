/* maps.h — the address-space layout of a target: /proc/PID/maps for a live process (a core's
 * NT_FILE note fills the same structure), and lookups by address. */
#ifndef V8WALK_MAPS_H
#define V8WALK_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { MAP_R = 1, MAP_W = 2, MAP_X = 4 };

struct mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of start, in bytes */
	uint32_t prot;       /* MAP_R | MAP_W | MAP_X */
	uint64_t inode;
	uint64_t dev;        /* st_dev of the file (makedev of the maps' major:minor; 0 = unknown) */
	char *path;          /* file path, "[stack]", "[heap]", or NULL for anonymous memory */
	bool deleted;        /* the file was deleted or replaced after mapping */
};

/* A mapping the kernel names in brackets ([vdso], [vsyscall], [stack], [heap]): no file behind
 * it, and executable ones are the kernel's code, not a JIT's. */
static inline bool mapping_is_kernel_named(const struct mapping *m)
{
	return m->path && m->path[0] == '[';
}

struct maps {
	struct mapping *v; /* sorted by start */
	size_t n, cap;
};

void maps_init(struct maps *m);
void maps_free(struct maps *m);
/* Parse /proc/PID/maps; returns 0 or -errno. */
int maps_read_proc(pid_t pid, struct maps *out);
/* Parse maps text (the /proc format); returns the number of mappings. */
size_t maps_parse(const char *text, struct maps *out);
void maps_add(struct maps *m, const struct mapping *e);
void maps_sort(struct maps *m);
const struct mapping *maps_find(const struct maps *m, uint64_t addr);
/* maps_find, trying `near` first (a mapping of m found before, or NULL): neighbouring lookups
 * (a walk's frames, libnode's text and the JIT code in turn) are most often in one mapping. */
const struct mapping *maps_find_near(const struct maps *m, const struct mapping *near, uint64_t addr);
static inline bool mapping_is_anon(const struct mapping *e) { return e->path == NULL; }

#endif
