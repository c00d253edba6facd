/* sourcemap.h — a decoded source map (version 3, plain or index map with "sections"): its
 * mappings as a compact table sorted by generated position, searched the way Node searches it
 * (the last entry at or before the position), with the sources (sourceRoot applied) and names. */
#ifndef V8WALK_SOURCEMAP_H
#define V8WALK_SOURCEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

enum {
	SM_NONE = UINT32_MAX,          /* no source / no name */
	SM_MAX_SECTION_DEPTH = 4,       /* index maps inside index maps */
	SM_MAX_ENTRIES = 8 << 20,       /* mappings of one map (192 MB decoded) */
	SM_MAX_STRINGS = 1 << 22,       /* sources or names of one map */
	SM_MAX_STRING_BYTES = 64 << 20, /* their text (sourceRoot included) */
};

/* All positions 0-based, as in the map. */
struct sm_entry {
	uint32_t gen_line, gen_col;
	uint32_t src;        /* index into sources, SM_NONE for a 1-field segment */
	uint32_t orig_line, orig_col;
	uint32_t name;       /* index into names or SM_NONE */
};

/* A list of strings in one buffer. */
struct sm_strings {
	struct strbuf buf; /* each string NUL-terminated */
	uint32_t *off;
	size_t n, cap;
};

struct sourcemap {
	struct sm_entry *e;
	size_t n, cap;
	struct sm_strings sources; /* sourceRoot + source, as written (resolved by the caller) */
	struct sm_strings names;
};

void sourcemap_init(struct sourcemap *m);
void sourcemap_free(struct sourcemap *m);
/* Parse buf[0..len); false with the reason in *why (static text), leaving m empty. */
bool sourcemap_parse(struct sourcemap *m, const char *buf, size_t len, const char **why);
/* The entry at (line, col), 0-based: the last entry at or before it; NULL when none. */
const struct sm_entry *sourcemap_find(const struct sourcemap *m, uint32_t line, uint32_t col);
const char *sm_string(const struct sm_strings *s, uint32_t i);
/* Bytes of memory the decoded map holds. */
size_t sourcemap_bytes(const struct sourcemap *m);

#endif
