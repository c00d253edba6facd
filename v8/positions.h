/* positions.h — the source position each JavaScript frame is executing, in every tier, and the
 * functions an optimized frame inlined:
 *   interpreted  BytecodeArray (fp-32) + bytecode offset (Smi at fp-40, or the live offset
 *                register in a bytecode handler) → the array's source-position table;
 *   baseline     the PC in the frame's baseline Code → bytecode offset → the same table;
 *   optimized    the PC in the Maglev/TurboFan Code that contains it (found by code.c, so OSR and
 *                deoptimized code count) → the Code's table, expanded through its
 *                deoptimization data into inlined frames.
 * When nothing better is known the frame shows its function's start (script_offset -1). */
#ifndef V8WALK_POSITIONS_H
#define V8WALK_POSITIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "tier.h"
#include "../mem/regs.h"
#include "baseline.h"
#include "code.h"
#include "frames.h"
#include "heap.h"
#include "inlining.h"
#include "../util/u64map.h"

/* Where a JS frame was found, as the stack walker knows it. */
struct js_site {
	uint64_t pc;       /* exact when `top`, else a return address */
	bool top;          /* the innermost frame (or the state a signal frame restored) */
	bool pc_in_frame;  /* pc belongs to this frame's code (not to a frameless builtin on top) */
	bool pc_in_jit;    /* pc is in V8-generated code (not in the embedded builtins) */
	bool in_handler;   /* pc is in a bytecode handler (live offset in a register) */
	const struct regset *regs; /* the interrupted registers when `top`, else NULL */
	/* return addresses into JIT code found just above the stack pointer (top frames only): the
	 * caller of a frameless builtin or of a prologue/epilogue left one there */
	const uint64_t *ret_candidates;
	int ncandidates;
};

enum pos_source {
	POS_FUNCTION_START, /* nothing better: the function's definition */
	POS_BYTECODE,       /* interpreted frame */
	POS_BASELINE,       /* baseline PC → bytecode offset */
	POS_CODE,           /* optimized code's own table */
};

struct js_position {
	uint64_t sfi;          /* SharedFunctionInfo of this (maybe inlined) function */
	int32_t script_offset; /* -1 = unknown */
	uint8_t tier;          /* enum js_tier */
	uint8_t source;        /* enum pos_source */
	bool inlined;
};

/* What one Code object or BytecodeArray yielded, kept while its identifying fields match. */
struct decoded {
	uint64_t obj;           /* the Code or BytecodeArray (0 = free slot) */
	uint64_t id[3];         /* Code: start, size/kind, tables; BytecodeArray: length, table */
	uint8_t *table;         /* position table (baseline Code: bytecode-offset table) */
	size_t tn;
	bool have_table;
	uint8_t *bytecodes;     /* BytecodeArray, read when a baseline frame needs them */
	size_t bn;
	struct inlining_data inl; /* optimized Code */
	uint8_t *safepoints;    /* Maglev Code: its safepoint table */
	size_t sn;
	int32_t *deopt_bytecode; /* Maglev Code: the outermost bytecode offset of each deopt entry */
	int ndeopt;
	uint32_t gen;           /* which decoding the slot holds (struct pos_memo) */
};

/* A position-table lookup remembered: the table of decoded slot `slot` - 1 as of decoding `gen`,
 * at code offset `off` (the same return addresses are looked up sample after sample, and a table
 * is scanned from its start). */
struct pos_memo {
	uint32_t slot, gen;
	int64_t off;
	uint64_t pos;
	bool ok;
};
enum { POS_MEMO_SLOTS = 4096 };

/* Sized for programs with thousands of hot functions: a smaller cache is re-read every sample. */
enum { DECODED_SLOTS = 8192 };

struct positions {
	struct code_finder codes;
	struct bytecode_sizes sizes; /* from the V8 binary; baseline frames need them */
	struct decoded *decoded;     /* DECODED_SLOTS, replaced round-robin */
	struct u64map idx;           /* object → slot + 1 (0: none) */
	unsigned next_slot;
	uint32_t gens;               /* decodings made (struct decoded gen) */
	struct pos_memo *memo;       /* POS_MEMO_SLOTS, direct-mapped; a cache, written also
					through a const struct positions */
	unsigned long no_code, no_table, decoded_hits;
	unsigned long decoded_new, decoded_replaced; /* decodings of an unseen address; of an address that holds another object now */
};

void positions_init(struct positions *p);
void positions_free(struct positions *p);

/* Positions of the JS frame vf (innermost first: inlined functions, then the frame's own
 * function). Returns the count (>= 1 when the frame's function is readable, else 0). */
int js_frame_positions(struct positions *p, const struct v8_heap *h, const struct v8_frame *vf,
		       const struct js_site *site, struct js_position *out, int max);

/* Positions at a top frame's pc in optimized code that is not the code of the frame at fp (whose
 * function is frame_function; 0 for a frame that is not a JS function's): the pc is in a
 * function's prologue before it built its frame, or in its epilogue after it tore it down (the
 * bailout check, push rbp / mov rbp, rsp; the argument drop and ret), so fp is still its caller's.
 * Innermost first, as js_frame_positions; 0 when pc is in no optimized code or in the frame's own. */
int positions_frameless_code(struct positions *p, const struct v8_heap *h, uint64_t pc,
			     uint64_t frame_function, struct js_position *out, int max);

/* The SharedFunctionInfos inlined at pc (pc - 1 for a return address) in the optimized code that
 * holds it, as decoded for an earlier sample (no read of the target; 0 when that pc was not seen
 * in optimized code): what a batched copy before the decode can include. Returns the count
 * written to sfi (at most max). */
int positions_inlined_at(const struct positions *p, const struct v8_layout *L, uint64_t pc,
			 uint64_t *sfi, int max);

/* Is the decoding of the BytecodeArray at tagged address bca kept, for the array as it is now
 * (its length and position-table word, read through h)? Then the decode will not read its
 * table (no read of the target beyond those two words). */
bool positions_bca_kept(const struct positions *p, const struct v8_heap *h, uint64_t bca);

/* The script offset of a bytecode offset in a BytecodeArray (-1 when the table is missing). */
int32_t positions_bytecode_offset_position(struct positions *p, const struct v8_heap *h,
					   uint64_t bca, int64_t offset);

#endif
