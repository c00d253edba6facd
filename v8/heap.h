/* heap.h — tagged values and defensive reads of V8 heap objects through a memory source. Every read
 * can fail or return garbage (the heap moves while we look): callers check results, never trust. */
#ifndef V8WALK_HEAP_H
#define V8WALK_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "layout.h"
#include "map_types.h"

struct v8_heap {
	struct memsrc *mem;
	const struct v8_layout *L;
	struct map_types *types; /* optional (NULL): root maps' types remembered across reads */
};

static inline bool v8_is_heap_object(uint64_t v) { return (v & 3) == 1; }
static inline bool v8_is_smi(uint64_t v) { return (v & 1) == 0; }
static inline int64_t v8_smi_value(uint64_t v) { return (int64_t)v >> 32; }
static inline bool v8_is_weak(uint64_t v) { return (v & 3) == 3 && v != 3; }
static inline uint64_t v8_strong(uint64_t v) { return v & ~(uint64_t)2; }

/* Read a field of a tagged object (offset from the untagged start). */
bool v8_field(const struct v8_heap *h, uint64_t obj, int32_t off, uint64_t *val);
bool v8_field_u32(const struct v8_heap *h, uint64_t obj, int32_t off, uint32_t *val);
bool v8_field_i32(const struct v8_heap *h, uint64_t obj, int32_t off, int32_t *val);
bool v8_field_u16(const struct v8_heap *h, uint64_t obj, int32_t off, uint16_t *val);
/* Read n bytes of an object at off. */
bool v8_read_obj(const struct v8_heap *h, uint64_t obj, int32_t off, void *buf, size_t n);
/* Instance type of a heap object, or -1 when it is not a readable heap object. */
int v8_type(const struct v8_heap *h, uint64_t obj);
/* Is obj a heap object of the instance type held in layout item `type_item`? */
bool v8_is(const struct v8_heap *h, uint64_t obj, enum v8_item type_item);
bool v8_is_string(const struct v8_heap *h, uint64_t obj);
bool v8_is_jsfunction(const struct v8_heap *h, uint64_t obj);
/* Has a GC evacuation moved obj (its map word is the forwarding address, not a map)? Then *to is
 * the object at its new place: a frame slot the GC has not updated yet still points at the old
 * one. */
bool v8_forwarded(const struct v8_heap *h, uint64_t obj, uint64_t *to);
bool v8_is_fixed_array_like(const struct v8_heap *h, uint64_t obj);
bool v8_is_byte_array_like(const struct v8_heap *h, uint64_t obj);
/* FixedArray-style element i (tagged, at data + 8*i). */
bool v8_array_get(const struct v8_heap *h, uint64_t arr, int64_t i, uint64_t *val);
/* Smi length of a FixedArrayBase-shaped object, or -1. */
int64_t v8_array_length(const struct v8_heap *h, uint64_t arr);

#endif
