/* function.h — what a JSFunction is: its SharedFunctionInfo's name (a String, or the ScopeInfo's
 * function name, or the inferred name), its Script, and where it is defined. Cached per
 * SharedFunctionInfo address and re-validated against the SFI's fields on every hit. */
#ifndef V8WALK_FUNCTION_H
#define V8WALK_FUNCTION_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/intern.h"
#include "../util/stable_pool.h"
#include "../util/u64map.h"
#include "heap.h"
#include "scripts.h"

struct v8_function {
	uint64_t sfi;
	uint64_t name_or_scope_info, script_field; /* identity check */
	int16_t token_offset;
	uint32_t name_id;      /* interned display name: "(anonymous)" when none */
	uint32_t shared_name_id; /* SharedFunctionInfo::Name(), 0 when empty */
	uint32_t inferred_id;  /* the parser's inferred name ("o.foo"), 0 when none */
	uint32_t flags;        /* SharedFunctionInfo flags (0 when unreadable) */
	uint32_t file_id;      /* interned script name, or "" when the function has no Script */
	uint64_t script;       /* the Script object (0 = none) */
	int32_t start_pos;     /* source position of the function (-1 = unknown) */
	int32_t def_line, def_col; /* 1-based definition position: the `function` token when V8
				    * recorded its distance (0 = unknown) */
	int32_t start_line, start_col; /* 1-based SharedFunctionInfo::StartPosition (its parameter
					* list), the function's position in V8's own profiles */
	bool has_script;
};

/* Entries live in fixed blocks that never move, so a pointer a caller holds stays valid while
 * other functions are looked up (naming one function can look up others: its receiver's
 * constructor). A full cache is emptied only between walks (function_cache_begin_walk). */
struct function_cache {
	struct stable_pool entries; /* struct v8_function */
	struct u64map idx; /* SFI address → index + 1 */
	struct intern *strings;
	struct script_cache *scripts;
	unsigned long hits, misses;
};

void function_cache_init(struct function_cache *c, struct intern *strings,
			 struct script_cache *scripts);
void function_cache_free(struct function_cache *c);
/* Call before each stack walk: the only point where a full cache is emptied. */
void function_cache_begin_walk(struct function_cache *c);
/* Describe the SharedFunctionInfo of a JSFunction; NULL when it cannot be read or fails type checks. */
const struct v8_function *function_of_jsfunction(struct function_cache *c, const struct v8_heap *h,
						 uint64_t jsfunction);
const struct v8_function *function_of_sfi(struct function_cache *c, const struct v8_heap *h,
					  uint64_t sfi);
/* One bit of the function's SharedFunctionInfo flags (a layout item: L_SFI_*_BIT); false when
 * this V8's layout lacks it. */
bool function_flag(const struct v8_layout *L, const struct v8_function *f, enum v8_item bit);

/* ScopeInfo decoding, exposed for tests: the function name, inferred name and positions. */
struct scope_info_parts {
	uint64_t function_name;  /* String, or 0 */
	uint64_t inferred_name;  /* String, or 0 */
	int32_t start, end;      /* -1 when absent */
};
bool scope_info_decode(const struct v8_heap *h, uint64_t scope_info, struct scope_info_parts *out);

#endif
