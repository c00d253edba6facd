/* map_types.h — instance types of V8's root maps, remembered across samples. The map of a String,
 * SharedFunctionInfo, ScopeInfo, Script, FixedArray, ByteArray, BytecodeArray, Code or Oddball is
 * one of the heap's root maps, which live in read-only space (never moved, never freed): once its
 * type was read, the next objects with that map cost no read of the map. Maps of JavaScript
 * objects live in the ordinary heap, may die and have their address reused: never remembered. */
#ifndef V8WALK_MAP_TYPES_H
#define V8WALK_MAP_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "layout.h"

struct map_types {
	struct u64map idx; /* map address → instance type + 1 */
	unsigned long hits;
};

void map_types_init(struct map_types *m);
void map_types_free(struct map_types *m);
/* The remembered type of this map (a tagged pointer). */
bool map_types_get(struct map_types *m, uint64_t map, int *type);
/* Remember a map's type if it is the type of a root map. */
void map_types_note(struct map_types *m, const struct v8_layout *L, uint64_t map, int type);

#endif
