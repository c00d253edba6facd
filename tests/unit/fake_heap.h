/* fake_heap.h — a synthetic V8 heap in a local buffer, served through the memory-source interface,
 * with the object layout of Node 20 (from made-up v8dbg_* pairs). Unit tests build maps, strings,
 * functions and frames in it and run the real decoder over them. */
#ifndef V8WALK_FAKE_HEAP_H
#define V8WALK_FAKE_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "../../v8/heap.h"
#include "../../v8/layout.h"
#include "../../v8/metadata.h"
#include "../../mem/memsrc.h"

enum {
	FT_SEQ_TWO = 32, FT_SEQ_ONE = 40, FT_CONS_TWO = 33, FT_CONS_ONE = 41, FT_EXT_TWO = 34,
	FT_EXT_ONE = 42, FT_SLICED_ONE = 43, FT_THIN_ONE = 45, FT_UNCACHED_EXT_ONE = 58,
	FT_INTERNALIZED_ONE = 8,
	FT_SCRIPT = 167, FT_SFI = 262, FT_SCOPE_INFO = 261, FT_FIXED_ARRAY = 175, FT_JSFUNCTION = 2066,
	FT_MAP = 255, FT_ODDBALL = 131,
};

struct fake_heap {
	struct memsrc base;
	uint64_t start;   /* address of mem[0] in the "target" */
	uint8_t *mem;
	size_t size, used;
	struct v8_metadata md;
	struct v8_layout L;
	struct v8_heap h;
	uint64_t meta_map;
	unsigned long reads;
};

void fh_init(struct fake_heap *fh);
/* Give a layout item a value of the test's own (an instance type the fake metadata lacks). */
void fh_set_item(struct v8_layout *L, enum v8_item item, int32_t v);
void fh_free(struct fake_heap *fh);
uint64_t fh_alloc(struct fake_heap *fh, size_t size);     /* tagged pointer */
uint64_t fh_map(struct fake_heap *fh, int type);
uint64_t fh_obj(struct fake_heap *fh, int type, size_t size);
void fh_set(struct fake_heap *fh, uint64_t obj, int off, uint64_t v);
void fh_set32(struct fake_heap *fh, uint64_t obj, int off, uint32_t v);
void *fh_ptr(struct fake_heap *fh, uint64_t addr);
static inline uint64_t fh_smi(int64_t v) { return (uint64_t)v << 32; }
uint64_t fh_raw(struct fake_heap *fh, const void *data, size_t n); /* untagged bytes */

uint64_t fh_str1(struct fake_heap *fh, const char *latin1);        /* SeqOneByte */
uint64_t fh_str2(struct fake_heap *fh, const uint16_t *u, int len);  /* SeqTwoByte */
uint64_t fh_cons(struct fake_heap *fh, uint64_t first, uint64_t second);
uint64_t fh_thin(struct fake_heap *fh, uint64_t actual);
uint64_t fh_sliced(struct fake_heap *fh, uint64_t parent, int offset, int len);
/* An Oddball of the given kind (Node 20 kinds: undefined 5, null 3, true 1, false 0). */
uint64_t fh_oddball(struct fake_heap *fh, int kind);
uint64_t fh_external(struct fake_heap *fh, const void *data, int len, bool two_byte, bool uncached);

#endif
