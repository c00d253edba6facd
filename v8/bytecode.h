/* bytecode.h — BytecodeArrays: the bytecode offset an interpreted frame is executing, the
 * bytecodes themselves (for the baseline PC mapping), and the array's source-position table.
 * Also the generic read of a (Trusted)ByteArray's bytes that every position table needs. */
#ifndef V8WALK_BYTECODE_H
#define V8WALK_BYTECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap.h"

enum { V8_TABLE_MAX_BYTES = 1 << 20, V8_BYTECODE_MAX_BYTES = 1 << 22 };

/* The bytes of a ByteArray or TrustedByteArray (type-checked; at most max bytes). Caller frees. */
bool v8_byte_array_read(const struct v8_heap *h, uint64_t arr, size_t max, uint8_t **out,
			size_t *n);

/* Is obj a BytecodeArray? */
bool v8_is_bytecode_array(const struct v8_heap *h, uint64_t obj);
/* Length in bytes of a BytecodeArray's bytecodes, or -1. */
int64_t bca_length(const struct v8_heap *h, uint64_t bca);
/* Bytecode offset from the raw value a frame keeps for it (a Smi, or the untagged register
 * value): both count from the tagged array pointer, not from the first bytecode. -1 when the
 * value is not an offset inside the array. */
int64_t bca_offset_from_frame(const struct v8_heap *h, uint64_t bca, int64_t frame_value);
/* What says which BytecodeArray is at bca, read through h: its length (id[0]) and its
 * source-position-table word as it is (id[1]; 0 when the layout has none; its type is not
 * checked, so that the table itself need not be copied). False when the length is not one. */
bool bca_identity(const struct v8_heap *h, uint64_t bca, uint64_t id[2]);
/* The source-position table object of a BytecodeArray (0 when absent: lazy source positions, or
 * a slot that holds something else). */
uint64_t bca_position_table(const struct v8_heap *h, uint64_t bca);
/* The BytecodeArray of a SharedFunctionInfo (through BytecodeWrapper, InterpreterData, baseline
 * Code or BaselineData), or 0 when it has none. */
uint64_t sfi_bytecode_array(const struct v8_heap *h, uint64_t sfi);
/* Copy the bytecodes (caller frees). */
bool bca_bytecodes(const struct v8_heap *h, uint64_t bca, uint8_t **out, size_t *n);

#endif
