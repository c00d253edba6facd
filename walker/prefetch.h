/* prefetch.h — before the JS frames of a stack are decoded, copy the heap objects they will read
 * (functions, bytecode arrays and their position tables, receivers, their maps,
 * SharedFunctionInfos) in two batched reads instead of dozens of small ones (on a live target,
 * two process_vm_readv once the thread runs again). */
#ifndef V8WALK_PREFETCH_H
#define V8WALK_PREFETCH_H

#include "../symtab/addrspace.h"
#include "../v8/map_types.h"
#include "../v8/positions.h"
#include "../v8/runtime.h"
#include "../mem/memsrc.h"
#include "unwind.h"

enum { PREFETCH_MAX_OBJECTS = 512 };

/* The heap objects (untagged addresses) a prefetch copied whole, receivers aside: what a decode
 * that runs after the thread resumed is checked against (walker/validate.h). */
/* Which frame slot (or which field of what the first batch copied) an object was reached from.
 * PF_FUNCTION: the function of a frame whose code the decode looks up (its pc in JIT code, or
 * the top frame); PF_FUNCTION_IN_BUILTIN: one whose frame runs in V8's builtins (the
 * interpreter, a builtin's own frame), whose current code is not asked. */
/* PF_SLOT_WORD: the receiver slot of a builtin's or stub's frame, copied for the frame memo's key
 * only (it may hold no object: never checked for a move). PF_MEMO_RECEIVER: the receiver of a
 * frame the memo has, whose map word the entry must match: its map is not copied (a decoded
 * frame's receiver, PF_RECEIVER, has its map copied too: a call-site name starts from it). */
/* PF_ALSO: a range of struct prefetch_also. */
enum prefetch_kind { PF_FUNCTION, PF_FUNCTION_IN_BUILTIN, PF_BYTECODE, PF_RECEIVER, PF_DETAIL, PF_MAP, PF_SLOT_WORD,
		     PF_MEMO_RECEIVER, PF_ALSO };

struct prefetched {
	uint64_t obj[PREFETCH_MAX_OBJECTS];
	uint8_t kind[PREFETCH_MAX_OBJECTS]; /* enum prefetch_kind */
	size_t n;
	uint64_t receivers[PREFETCH_MAX_OBJECTS]; /* copied for their map word */
	bool receiver_decoded[PREFETCH_MAX_OBJECTS]; /* of a frame the memo did not have */
	size_t nreceivers;
};

/* A raw frame the memo has (skip[i]): one it decoded to JS frames, whose receiver slot holds the
 * receiver whose map the entry must match (a moved one is a moved sample, as a decoded frame's
 * is), or one it decoded to a builtin's frame only, whose slot there may hold anything young
 * (copied for the entry's match, never checked for a move: a scavenge moving it says nothing of
 * the sample: measured, it marked 6 % of a clock-reading fixture's samples moved). */
enum { PREFETCH_SKIP_JS = 1, PREFETCH_SKIP_NOT_JS = 2 };

/* Other ranges the same batch copies for the caller's own checks (untagged addresses; what an
 * entry found by what it runs must match: frame_memo.h), followed no further. */
struct prefetch_also {
	uint64_t addr[PREFETCH_MAX_OBJECTS];
	uint32_t len[PREFETCH_MAX_OBJECTS];
	size_t n;
};

/* Copy the objects the frames' slots name — functions, bytecode arrays, receivers (their map
 * word) — in one batch, with the ranges of `also` (NULL: none). */
void prefetch_js_objects(const struct v8_runtime *rt, struct addrspace *as, struct memsrc *mem,
			 const struct raw_frame *raw, int n, const uint32_t *skip,
			 const struct prefetch_also *also, struct prefetched *out);
/* Did a GC move one of the functions or receivers copied (after the stop) since the stop? Where
 * its map was, a moved object holds a forwarding address, which is not a tagged pointer
 * (MapWord::FromForwardingAddress); bytecode arrays live in old space, and a slot that only
 * looked like one is not asked. */
bool prefetched_moved(const struct v8_runtime *rt, struct memsrc *mem, const struct prefetched *p);
/* What the after-resume batch can use beyond the copy (each may be NULL): root maps' types, and
 * the inlining the positions cache decoded for the code of the raw frames. */
struct prefetch_hints {
	struct map_types *types;
	const struct positions *positions;
	const struct raw_frame *raw;
	int nraw;
	const uint32_t *skip; /* NULL, or nonzero for the raw frames not to decode (frame_memo.h):
			       * PREFETCH_SKIP_JS or PREFETCH_SKIP_NOT_JS */
};

/* Once it runs again: copy what those name — SharedFunctionInfos, position tables, Code headers,
 * old-space objects — in one more batch, before the frames are decoded; the objects are added to
 * p, so that the decode is validated against them (walker/validate.h). The same batch copies the
 * maps of the functions and receivers whose type the hints do not know (every frame's type check
 * reads them, and a call-site name starts from the receiver's), and the SharedFunctionInfos of
 * the functions inlined where the frames' code was seen before. */
void prefetch_js_details(const struct v8_runtime *rt, const struct prefetch_hints *hints,
			 struct memsrc *mem, struct prefetched *p);
/* The objects the batches copied for raw frame i whose identity a validation compares (its
 * function's SharedFunctionInfo and code, its bytecode array, the functions inlined at its pc),
 * found again through `mem` (the copy) as the batches found them: untagged, into out (at most
 * max); returns the count. It restates which words prefetch_js_objects and prefetch_js_details
 * follow for a frame: a change to those is a change here. */
int prefetch_frame_objects(const struct v8_runtime *rt, const struct prefetch_hints *hints,
			   struct memsrc *mem, int i, uint64_t *out, int max);

#endif
