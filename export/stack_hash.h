/* stack_hash.h — the stable identity of a stack in ClickHouse: 64-bit FNV-1a over the stack's
 * folded text, its frames outermost first as `--raw` writes them (JS `_[j]`/`_[i]` suffixes
 * included), joined by ';', without the process and thread levels and without a final newline.
 * The same stack hashes the same on every host and in every run, so a DBA can compute it from a
 * folded line. */
#ifndef V8WALK_STACK_HASH_H
#define V8WALK_STACK_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_OFFSET 0xcbf29ce484222325ULL
#define FNV1A64_PRIME 0x100000001b3ULL

/* Continue an FNV-1a 64 hash `h` (start from FNV1A64_OFFSET) over p[0..n). */
uint64_t fnv1a64_add(uint64_t h, const void *p, size_t n);
/* The hash of a whole folded stack text. */
static inline uint64_t stack_hash_of(const char *folded, size_t len)
{
	return fnv1a64_add(FNV1A64_OFFSET, folded, len);
}

#endif
