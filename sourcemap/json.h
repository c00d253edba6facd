/* json.h — a bounded, pull-style JSON reader for source maps: no tree is built; the caller walks
 * objects and arrays with json_enter/json_more and reads strings (counted, unescaped to UTF-8) and
 * integers (overflow-checked), or skips any value without recursion. Nesting is limited. */
#ifndef V8WALK_SM_JSON_H
#define V8WALK_SM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "../util/hex.h" /* hex_digit, for JSON escapes and URLs' percent escapes */

enum { JSON_MAX_DEPTH = 64 };

struct json {
	const char *p, *end;
	int depth;
	const char *err; /* first error (static text), NULL while fine */
};

void json_init(struct json *j, const char *buf, size_t len);
/* Skip whitespace; the next byte or 0 at the end. */
char json_peek(struct json *j);
/* Consume '{' or '[' (open). */
bool json_enter(struct json *j, char open);
/* Inside an object/array entered with json_enter: true when another member/element follows
 * (consuming the ',' before it), false at the closing bracket (consumed) or on error. *first
 * starts true. */
bool json_more(struct json *j, char close, bool *first);
/* An object member's key and its ':'. */
bool json_key(struct json *j, struct strbuf *key);
/* A string value, unescaped to UTF-8 into out (appended; \u0000 is kept as a byte). */
bool json_read_string(struct json *j, struct strbuf *out);
/* An integer value (no fraction or exponent) within int64. */
bool json_int(struct json *j, int64_t *v);
/* Skip any value (iteratively; nesting limited by JSON_MAX_DEPTH). */
bool json_skip(struct json *j);
/* Only whitespace remains. */
bool json_at_end(struct json *j);

#endif
