/* baseline.h — Sparkplug (baseline) code: PC offset → bytecode offset, as V8's
 * BytecodeOffsetIterator does it. A baseline Code keeps a table of unsigned VLQ PC deltas, one for
 * the prologue and then one per bytecode, so the table is walked in lockstep with the bytecodes,
 * whose sizes come from V8's own Bytecodes::kBytecodeSizes[3][N] in the binary's .rodata. */
#ifndef V8WALK_BASELINE_H
#define V8WALK_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../symtab/elf_image.h"

struct bytecode_sizes {
	uint8_t *v;   /* [scale][opcode] flattened: scale 0 (single), 1 (wide), 2 (extra wide) */
	size_t count; /* opcodes per scale; 0 = not loaded */
};

/* Read Bytecodes::kBytecodeSizes from the V8 binary; false when absent or implausible. */
bool bytecode_sizes_load(struct bytecode_sizes *bs, const struct elf_image *img);
/* Take a copy of a table (tests, other sources). */
bool bytecode_sizes_from(struct bytecode_sizes *bs, const uint8_t *v, size_t total);
void bytecode_sizes_free(struct bytecode_sizes *bs);
/* Size of the bytecode at bc[at] including any Wide/ExtraWide prefix; 0 when unknown. */
size_t bytecode_size_at(const struct bytecode_sizes *bs, const uint8_t *bc, size_t n, size_t at);

/* The bytecode offset whose machine code contains pc_offset (-1 = the prologue). Return
 * addresses are not adjusted: V8 assigns a pc equal to a bytecode's end to that bytecode. */
bool baseline_bytecode_offset(const struct bytecode_sizes *bs, const uint8_t *table, size_t tn,
			      const uint8_t *bc, size_t bn, uint64_t pc_offset, int64_t *out);

#endif
