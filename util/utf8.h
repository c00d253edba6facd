/* utf8.h — UTF-8 validity, for formats that must be valid UTF-8 (XML, JSON) while the names
 * they carry come from a target's memory or files. */
#ifndef V8WALK_UTF8_H
#define V8WALK_UTF8_H

#include <stddef.h>

/* Bytes of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not start one (the caller
 * writes a replacement and skips one byte). s is NUL-terminated. */
size_t utf8_seq_len(const char *s);

#endif
