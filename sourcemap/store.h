/* store.h — source maps per script, for the stack walker's stage 2 (after the target resumed):
 * each script's map is found, read and decoded once (cached by the Script's address and
 * re-validated against its source), within a memory budget; failures are counted once per script
 * with their reason; sm_apply rewrites JS frames to their original position and name (the
 * generated position kept in the frame), as Node's Error.stack does with source maps on. */
#ifndef V8WALK_SM_STORE_H
#define V8WALK_SM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../mem/memsrc.h"
#include "../mem/memsrc_live.h"
#include "../util/intern.h"
#include "../util/u64map.h"
#include "../v8/scripts.h"
#include "../walker/frame.h"
#include "sourcemap.h"

enum sm_failure {
	SMF_MISSING,     /* the map file does not exist */
	SMF_UNREADABLE,  /* not readable, not a regular file, a symlink, too large, URL not usable */
	SMF_MALFORMED,   /* not a valid version 3 source map */
	SMF_BUDGET,      /* the memory budget for maps was spent */
	SMF_COUNT,
};

enum {
	SM_MAX_MAP_BYTES = 64 << 20,        /* a map file or inline map */
	SM_MAX_TAIL_UNITS = 32 << 20,       /* source read to find the comment (an inline map) */
	SM_DEFAULT_BUDGET = 512u << 20,     /* all decoded maps together */
	SM_MAX_NOTES = 8,                   /* failures described one by one in the summary */
	SM_MAX_SCRIPTS = 1 << 16,
};

struct sm_script;

struct sm_stats {
	unsigned long scripts;  /* scripts with a sourceMappingURL comment */
	unsigned long loaded;   /* ... whose map was loaded */
	unsigned long failed[SMF_COUNT];
	unsigned long unread;   /* scripts whose source could not be read (map not looked for) */
	unsigned long mapped_frames, unmapped_frames; /* frames of mapped scripts (hit / no entry) */
	uint64_t load_ns;       /* time spent finding, reading and decoding maps */
	size_t bytes;           /* memory the decoded maps hold */
};

struct sm_store {
	struct intern *strings;
	struct script_cache *scripts; /* the walker's: names and sources of the scripts seen */
	struct memsrc *mem;           /* reads the target's heap after it resumed */
	const struct v8_layout *L;
	char root[64];                /* the target's filesystem: "/proc/PID/root" or "" */
	size_t budget;
	struct sm_script *v;
	size_t n, cap;
	struct u64map idx; /* Script address → index + 1 */
	struct u64map by_key; /* interned map key (its file, or its script for inline maps) + 1 →
			       * index + 1 of the entry that loaded it */
	struct sm_stats st;
	char *notes[SM_MAX_NOTES]; /* "FILE: why" for the first failures */
	size_t nnotes;
	struct memsrc_live live;   /* mem, for a live process (sm_store_init_live) */
	bool own_live;
};

void sm_store_init(struct sm_store *s, struct intern *strings, struct script_cache *scripts,
		   struct memsrc *mem, const struct v8_layout *L, const char *root);
/* For a live process: its memory read afresh after each resume, files under /proc/PID/root. */
void sm_store_init_live(struct sm_store *s, struct intern *strings, struct script_cache *scripts,
			const struct v8_layout *L, pid_t pid);
void sm_store_free(struct sm_store *s);
/* Stage 2: frames innermost first. */
void sm_apply(struct sm_store *s, struct frame *f, int n);
/* The summary line(s), only when some script had a map comment. */
void sm_store_summary(const struct sm_store *s, FILE *out);
/* Tests: give the script at script_addr this decoded map (taken over; *map is left empty) with
 * relative sources resolved against base; false when the script already has an entry. */
bool sm_store_put(struct sm_store *s, uint64_t script_addr, struct sourcemap *map, const char *base);
/* Load (or find) one script's map; exposed for benchmarks and tests. NULL without one. */
const struct sourcemap *sm_store_map(struct sm_store *s, uint64_t script_addr);

#endif
