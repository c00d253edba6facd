/* heap_input.h — the synthetic V8 heap the heap harnesses decode and the seed generator writes:
 * tests/unit/fake_heap's Node 20 layout (plus the instance types it lacks), its meta map at the
 * start, and after it one region of fuzzer bytes. An input is a header naming the objects to
 * decode (offsets into the region, tag bits included) and what to do with them, then the region. */
#ifndef V8WALK_FUZZ_HEAP_INPUT_H
#define V8WALK_FUZZ_HEAP_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../tests/unit/fake_heap.h"

/* instance types the Node 20 fake metadata does not carry (as tests/unit/test_positions.c) */
enum { HI_T_BYTE_ARRAY = 190, HI_T_BCA = 191, HI_T_CODE = 245, HI_T_IS = 252,
       HI_T_WEAK_FIXED_ARRAY = 240, HI_T_WASM_INSTANCE = 2098, HI_T_WASM_MODULE = 2100 };

struct heap_input_header {
	uint32_t root, aux, aux2; /* offsets from the region's start (tag bits included) */
	uint32_t op;              /* what to decode (the harness reads it modulo its count) */
	int64_t num;              /* a position, offset or pc, as the op needs */
};

/* fake_heap plus the extra instance types; the region starts at heap_input_region(fh). */
void heap_input_init(struct fake_heap *fh);
uint64_t heap_input_region(const struct fake_heap *fh);
/* Replace the region by `len` bytes (clipped to the heap's size); returns the bytes used. */
size_t heap_input_load(struct fake_heap *fh, const uint8_t *bytes, size_t len);

#endif
