/* spt.h — V8 source-position tables (src/codegen/source-position-table.cc) and SourcePosition
 * values. One table format serves BytecodeArrays (code offset = bytecode offset) and machine Code
 * (code offset = pc offset): a list of (code offset delta, source position delta) pairs. The
 * position delta is a zig-zag VLQ. The code delta comes in two encodings:
 *   SPT_SIGNED  (V8 <= 13.6, measured): a zig-zag VLQ; negative = expression, with the delta
 *               -d - 1; non-negative = statement;
 *   SPT_PACKED  (V8 14.6, measured): an unsigned VLQ z, statement = z & 1, bit 1 set on every
 *               entry seen, delta = z >> 2.
 * Pure functions over bytes: no memory source, no layout. */
#ifndef V8WALK_SPT_H
#define V8WALK_SPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spt_entry {
	int64_t code_offset;  /* bytecode or pc offset; -1 = function entry */
	uint64_t position;    /* raw SourcePosition bits */
	bool is_statement;
};

enum spt_format { SPT_SIGNED = 0, SPT_PACKED = 1 };

struct spt_iter {
	const uint8_t *p;
	size_t n, at;
	enum spt_format format;
	struct spt_entry cur;
	bool bad; /* the table ended inside an entry or a value overflowed */
};

/* Start before the first entry (code offset -1, position 0, as V8's iterator). */
void spt_iter_init(struct spt_iter *it, const uint8_t *p, size_t n, enum spt_format format);
/* Advance to the next entry; false at the end of the table (or when it is malformed). */
bool spt_iter_next(struct spt_iter *it);

/* The raw position of the last JavaScript (non-external) entry whose code offset is <=
 * code_offset (V8's AbstractCode::SourcePosition loop). False when no entry qualifies or the
 * table is malformed. */
bool spt_lookup(const uint8_t *p, size_t n, enum spt_format format, int64_t code_offset,
		uint64_t *position);

/* SourcePosition bits (src/codegen/source-position.h): bit 0 external; bits 1-30 script offset + 1
 * (0 = none); bits 31-46 inlining id + 1 (0 = the outermost function). */
static inline bool srcpos_is_external(uint64_t p) { return (p & 1) != 0; }
static inline int32_t srcpos_script_offset(uint64_t p)
{
	return (int32_t)((p >> 1) & ((1u << 30) - 1)) - 1;
}
static inline int32_t srcpos_inlining_id(uint64_t p)
{
	return (int32_t)((p >> 31) & 0xffff) - 1;
}

/* Unsigned VLQ (7 bits a byte, low group first; used by baseline bytecode-offset tables). */
bool vlq_read_unsigned(const uint8_t *p, size_t n, size_t *at, uint64_t *out);
/* Zig-zag VLQ (source-position tables). */
bool vlq_read_signed(const uint8_t *p, size_t n, size_t *at, int64_t *out);

#endif
