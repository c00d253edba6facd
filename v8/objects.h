/* objects.h — reading JavaScript objects the way V8's stack-trace code looks at receivers: a
 * JSObject's own named properties (fast mode: the map's DescriptorArray with in-object, out-of-
 * object or descriptor-held values; dictionary mode: a NameDictionary), its map's constructor and
 * prototype, and the map bits that decide which constructor name applies. All reads are defensive
 * and bounded: a torn object yields no properties, never a hang. */
#ifndef V8WALK_OBJECTS_H
#define V8WALK_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

struct v8_property {
	uint64_t key;   /* a Name: String or Symbol */
	uint64_t value; /* the value; for accessors the AccessorPair; 0 for unboxed doubles */
	bool accessor;
	bool dont_enum;
};

/* Return false to stop the walk. */
typedef bool (*v8_property_cb)(void *ctx, const struct v8_property *p);

/* Visit the own named properties of a JSObject (fast or NameDictionary mode); false when the
 * object cannot be read or keeps its properties somewhere else (globals, Swiss tables). */
bool v8_own_properties(const struct v8_heap *h, uint64_t obj, v8_property_cb cb, void *ctx);

/* The map of a heap object (0 when unreadable). */
uint64_t v8_map_of(const struct v8_heap *h, uint64_t obj);
/* map.prototype when it is a JSReceiver-like heap object, else 0 (null). */
uint64_t v8_map_prototype(const struct v8_heap *h, uint64_t map);
/* Map::GetConstructor: constructor_or_back_pointer after following back pointers (and a Tuple2
 * holder), or 0. */
uint64_t v8_map_constructor(const struct v8_heap *h, uint64_t map);
/* Map bits (bit_field, bit_field2, bit_field3) */
bool v8_map_bits(const struct v8_heap *h, uint64_t map, uint8_t *bf, uint8_t *bf2, uint32_t *bf3);

/* Is str a String whose contents equal the UTF-8 text s? */
bool v8_string_equals(const struct v8_heap *h, uint64_t str, const char *s);
/* The same for the counted bytes s[0..n) (which may hold NUL). */
bool v8_string_equals_n(const struct v8_heap *h, uint64_t str, const char *s, size_t n);
/* Is sym a Symbol whose description equals s ("Symbol.toStringTag")? */
bool v8_symbol_is(const struct v8_heap *h, uint64_t sym, const char *description);

#endif
