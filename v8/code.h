/* code.h — V8 Code objects: their instruction range, kind, position table and deoptimization
 * data, and finding the Code that contains a machine-code address. A JIT PC is first tried
 * against a hint (the function's current code), then against the Code objects found before
 * (re-validated), then by scanning the memory below the PC for the header of the object that
 * holds the instructions (an InstructionStream from V8 11.1.204, the Code itself before), whose
 * back pointer and instruction range must agree. This finds OSR code, code a function no longer
 * points to (deoptimized, tiered up) and code reached only through the dispatch table. */
#ifndef V8WALK_CODE_H
#define V8WALK_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "code_ranges.h"
#include "heap.h"

enum code_tier { CT_OTHER, CT_BASELINE, CT_MAGLEV, CT_TURBOFAN };

struct v8_code {
	uint64_t code;        /* tagged Code */
	uint64_t map;         /* its map (a cache hit whose header still has it skips the type check) */
	uint64_t start, size; /* instructions */
	int kind;             /* CodeKind value of this V8 */
	enum code_tier tier;
	uint64_t spt;         /* source-position table (baseline: bytecode-offset table) */
	uint64_t deopt;       /* deoptimization data (baseline: BytecodeArray or InterpreterData) */
};

static inline bool v8_code_contains(const struct v8_code *c, uint64_t pc)
{
	return pc >= c->start && pc < c->start + c->size;
}

/* Sized for programs with thousands of optimized functions. */
enum { CODE_CACHE_SLOTS = 4096, CODE_SCAN_MAX = 1 << 20 };

struct code_finder {
	struct v8_code *cache; /* CODE_CACHE_SLOTS found before; re-read on every hit */
	struct u64map by_code; /* tagged Code → slot + 1 */
	struct u64map by_pc;   /* a PC found in a slot before → slot + 1 (checked on use) */
	unsigned next_slot;    /* round-robin replacement */
	uint64_t holder_map;   /* learned map of InstructionStream (or Code) */
	uint64_t code_map;     /* learned map of Code */
	unsigned long walk;    /* the walk (sample) being decoded: code_finder_begin_walk */
	unsigned long *held;   /* per slot: the walk that last saw its instructions' holder name it */
	struct code_ranges ranges; /* the slots' instructions by start */
	unsigned long hits, scans, scan_fail, stale;
};

void code_finder_init(struct code_finder *cf);
void code_finder_free(struct code_finder *cf);
/* A new walk: a cached Code's instructions are checked again once in it (still_there). */
static inline void code_finder_begin_walk(struct code_finder *cf) { cf->walk++; }
/* The cached Code a code_find of pc found before, whose instructions contain pc (NULL when none
 * did): what the cache says, no read of the target; the Code may have gone since (a hint, not a
 * fact, until code_find checks it again). */
const struct v8_code *code_cached_at(const struct code_finder *cf, uint64_t pc);
/* What code_find of pc reads when the cache has a Code for it (code_cached_at): the Code's
 * header and, where the instructions live apart from it (V8 >= 11.1.204), the back pointer of
 * their holder — as untagged addresses and lengths, at most two (0: the cache has none). What a
 * batched copy can hold, so that the check then reads nothing more. */
int code_check_ranges(const struct code_finder *cf, const struct v8_layout *L, uint64_t pc,
		      uint64_t addr[2], uint32_t len[2]);
/* The Code whose instructions contain pc. `hint` (a tagged Code or 0) is tried first. */
bool code_find(struct code_finder *cf, const struct v8_heap *h, uint64_t pc, uint64_t hint,
	       struct v8_code *out);

#endif
