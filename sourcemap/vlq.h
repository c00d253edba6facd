/* vlq.h — the base64 VLQ numbers of a source map's "mappings" (one signed 32-bit value each). */
#ifndef V8WALK_SM_VLQ_H
#define V8WALK_SM_VLQ_H

#include <stdbool.h>
#include <stdint.h>

/* The value of a base64 digit (A-Z a-z 0-9 + /), or -1. */
int base64_digit(char c);
/* Decode one value at *p (not past end), advancing *p; false on a character outside base64, a
 * value cut off by the end or a separator, or one beyond 32 bits. */
bool vlq_decode(const char **p, const char *end, int32_t *out);

#endif
