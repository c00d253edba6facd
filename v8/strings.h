/* strings.h — decoding every V8 string representation (sequential one- and two-byte, cons, thin,
 * sliced, external) into UTF-8, or into a stream of UTF-16 code units for line tables. Iterative,
 * with bounded depth, steps and length: a cyclic or torn string costs one name, never a hang. */
#ifndef V8WALK_STRINGS_H
#define V8WALK_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "heap.h"

enum { V8_NAME_MAX_UNITS = 1024, V8_SOURCE_MAX_UNITS = 16 << 20 };

/* Visit the code units [from, to) of a string, in order, in chunks. `two_byte` chunks hold
 * little-endian UTF-16 units. Return false from cb to stop. */
typedef bool (*v8_chunk_cb)(void *ctx, const uint8_t *data, size_t units, bool two_byte);

/* Length in UTF-16 code units, or -1 when obj is not a readable string. */
int64_t v8_string_length(const struct v8_heap *h, uint64_t str);
/* Walk [from, to); returns false when the string could not be read completely. */
bool v8_string_walk(const struct v8_heap *h, uint64_t str, size_t from, size_t to, v8_chunk_cb cb,
		    void *ctx);
/* Append the first max_units code units as UTF-8 (Latin-1 and UTF-16 converted; lone surrogates
 * become U+FFFD). Returns false (appending nothing) when the string cannot be read. */
bool v8_string_utf8(const struct v8_heap *h, uint64_t str, size_t max_units, struct strbuf *out);
/* The same for the code units [from, to) (a unit at `from` that is the second of a pair becomes
 * U+FFFD). */
bool v8_string_utf8_range(const struct v8_heap *h, uint64_t str, size_t from, size_t to,
			  struct strbuf *out);

/* UTF-8 encoding helpers, shared with tests */
size_t utf8_put(uint32_t cp, char out[4]);

#endif
