/* scripts.h — Script objects: their name (file path, URL, node:internal/…) and line tables, from
 * Script.line_ends when V8 built it, else scanned once from the source (every string
 * representation, \r\n aware). Cached by address and re-validated against the Script's fields. */
#ifndef V8WALK_SCRIPTS_H
#define V8WALK_SCRIPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/intern.h"
#include "../util/stable_pool.h"
#include "../util/u64map.h"
#include "heap.h"

struct v8_script {
	uint64_t addr;
	uint64_t name_ptr, source_ptr; /* identity check on reuse */
	uint32_t name_id;              /* interned script name ("" for none) */
	uint64_t eval_from_shared;     /* the SFI that eval'd this code, else 0 */
	uint32_t *ends;                /* code-unit offsets of each line's terminator */
	size_t nends;
	uint8_t scan_tries;            /* failed scans of this source so far */
	uint16_t scan_skip;            /* lookups to let pass before the next try (2^tries, capped) */
	bool lines_ok;
	bool from_line_ends;           /* table came from Script.line_ends (else from the source) */
};

/* The line tables of all cached Scripts together stay within this (a target could otherwise make
 * 4,096 scripts × 16 MB of line ends); past it no new table is built until the next walk, which
 * empties them all. */
#define SCRIPT_LINES_BUDGET ((size_t)64 << 20)
/* the longest wait between two scans of a source that failed: 2^12 lookups */
#define SCRIPT_SCAN_BACKOFF_MAX 12

/* Entries never move (see util/stable_pool.h); a full cache is emptied only between walks. */
struct script_cache {
	struct stable_pool entries; /* struct v8_script */
	struct u64map idx; /* script address → index + 1 */
	struct intern *strings;
	unsigned long rebuilt, scanned;
	size_t line_bytes, line_budget;  /* bytes of all line tables; SCRIPT_LINES_BUDGET */
	unsigned long budget_refusals;   /* positions left unresolved because the budget was full */
	unsigned long budget_flushes;    /* walks that began by emptying the tables */
};

void script_cache_init(struct script_cache *c, struct intern *strings);
void script_cache_free(struct script_cache *c);
/* Call before each stack walk: the only point where a full cache is emptied. */
void script_cache_begin_walk(struct script_cache *c);
/* Look up (and validate or build) a Script; NULL when obj is not a readable Script. */
struct v8_script *script_get(struct script_cache *c, const struct v8_heap *h, uint64_t obj);
/* The cached entry of a Script already validated (e.g. through a SharedFunctionInfo whose own
 * fields still match), without reading target memory; NULL when not cached. */
struct v8_script *script_cached(struct script_cache *c, uint64_t obj);
/* Source position (code-unit offset) → 1-based line and column. */
bool script_position(struct script_cache *c, const struct v8_heap *h, struct v8_script *s,
		     int64_t pos, int32_t *line, int32_t *col);
/* Pure helper: position → line/col over a line-end table (exposed for tests). */
bool line_table_lookup(const uint32_t *ends, size_t n, int64_t pos, int32_t *line, int32_t *col);

#endif
