/* frame_memo.h — the decoded frames of JS activations seen on a stack, kept under the stack words
 * that identify them, so that an activation still waiting for its callee at the next sample is
 * not decoded again: its objects are neither copied, decoded nor re-validated.
 *
 * Why the stack words are enough: a frame whose callee has not returned keeps its slots (the
 * function, context, bytecode array and offset, receiver) and return address as they were, and
 * a GC that moves one of those objects rewrites the slot, so a moved object never matches; the
 * objects a frame names are alive while the frame is; what a frame decodes to (positions,
 * inlining, names) is fixed by its code, bytecode and function, which do not change under a
 * live frame. Only decodings that named every frame, at a known position, and whose sample
 * validated are kept (frame_memo_commit). What could still differ is the receiver's type once
 * its map changed (a property added to it or its prototype changed): the call-site name is
 * the one of the first time; an entry is decoded again MEMO_LIFETIME_WALKS walks after it was
 * made, to bound that. */
#ifndef V8WALK_FRAME_MEMO_H
#define V8WALK_FRAME_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "../util/u64map.h"
#include "../v8/heap.h"
#include "../v8/layout.h"
#include "frame.h"
#include "unwind.h"

/* MEMO_GENERATION entries per generation: when the current one is full it becomes the old one,
 * whose entries move back into the current one as they are used (the rest go with it) */
enum { MEMO_MAX_FRAMES = 8, MEMO_GENERATION = 4096, MEMO_LIFETIME_WALKS = 4096 };

/* What identifies an activation: where it is, where it returns to, the slots its decoding reads
 * (function, bytecode array and offset; whether the context slot holds an object or a frame
 * marker), its caller's frame pointer and the caller's marker slot (a construct frame makes the
 * call `new`). Not the other slots: interpreter registers and spill slots hold young objects,
 * which every scavenge moves. Nor the receiver, young as often as not: what its name depends on
 * is its map (the call-site names are cached per map too), which an entry keeps and a hit must
 * match (frame_memo_receiver_id). */
struct memo_key {
	uint64_t fp, pc, caller_fp, caller_marker;
	uint64_t function, bytecode_array, bytecode_offset, context_is_object;
	uint64_t optimized; /* 1: Maglev/TurboFan code: the closure and the bytecode slots left out */
	uint64_t anchored;  /* enum memo_anchor: MEMO_AT_FP, or what it runs (frame_memo_anchored_key) */
};

/* How an entry is keyed: where the activation is, or what it runs wherever it is — its bytecode
 * array and offset (a return into the interpreter), its bytecode array and the pc (into
 * baseline code), its Code and the pc (into Maglev or TurboFan code). */
enum memo_anchor { MEMO_AT_FP, MEMO_BY_BYTECODE, MEMO_BY_BASELINE, MEMO_BY_CODE };

struct memo_entry {
	struct memo_key key;
	unsigned long born;  /* the walk that decoded it */
	uint64_t receiver;   /* the receiver's map (a Smi receiver: itself) when it was decoded */
	uint64_t anchor[2];  /* anchored: what it runs as it was then: its bytecode array's identity
			      * (frame_memo_anchor_id), or its Code and instruction start */
	uint32_t first;      /* its frames: frames[first .. first + n) of its generation */
	uint8_t n;
	bool js;             /* one of them is a JS frame (the others: a named builtin's) */
};

struct memo_generation {
	struct memo_entry *entries;
	size_t n, cap;
	struct frame *frames;
	size_t nframes, capframes;
	struct u64map idx; /* key hash → index + 1 */
};

/* Where a found entry is, until the next frame_memo_commit. */
struct memo_ref {
	uint32_t gen, idx;
};

struct frame_memo {
	struct memo_generation gen[2]; /* [cur], [!cur] the old one */
	int cur;
	bool turned;                   /* this walk: a second turn would clear what it found */
	struct memo_entry *pending;    /* decoded this walk, kept if its sample validates; their */
	struct frame *pending_frames;  /* frames: pending_frames[first .. first + n) */
	size_t npending, cappending, npending_frames, cappending_frames;
	unsigned long walks;
	unsigned long hits, misses, kept, dropped, expired, turns, other_receiver;
	/* anchored keys, looked up after a miss: found, not found, found but their bytecode array
	 * or Code was another's by then */
	unsigned long anchored_hits, anchored_misses, anchor_changed;
};

void frame_memo_init(struct frame_memo *m);
void frame_memo_free(struct frame_memo *m);
/* A new walk (forgets what the last one staged and did not commit). */
void frame_memo_begin_walk(struct frame_memo *m);
/* The key of raw frame rf from the stack copy (false: not a frame the memo can key: the top
 * frame, whose pc is exact, or a frame without a frame pointer). interpreted: rf returns into
 * the interpreter, so its bytecode-array slot holds its BytecodeArray, which belongs to one
 * SharedFunctionInfo: the closure is left out of the key (closures made anew, and young ones a
 * scavenge moves, are then one activation: measured on tsc, a different function slot was half
 * of the misses at a frame pointer and return address seen before). optimized: rf returns into
 * Maglev or TurboFan code (as the code cache last found it), where the bytecode-array and
 * offset slots are spill slots (young objects a scavenge moves and rewrites) that its decoding
 * does not read, and whose Code belongs to one SharedFunctionInfo, as a BytecodeArray does: the
 * two slots and the closure are left out of the key (measured on tsc: of the frames that missed
 * below a top of stack unchanged since the last sample, as many had a moved closure as had the
 * same key; spill slots took half the hits before). */
bool frame_memo_key(const struct v8_layout *L, struct memsrc *stack, const struct raw_frame *rf,
		    bool interpreted, bool optimized, struct memo_key *k);
/* The key of any activation that runs the same code at the same place, wherever it is on the
 * stack: k (from frame_memo_key) without its frame pointers. MEMO_BY_BYTECODE, a frame that
 * returns into the interpreter: its bytecode array and offset; MEMO_BY_BASELINE, into baseline
 * (Sparkplug) code, whose pc says the offset: its bytecode array (the offset slot, where
 * baseline frames keep their feedback, left out); MEMO_BY_CODE, into Maglev or TurboFan code (k
 * made with `optimized`): the pc only. A recursive program's frames are new activations at
 * nearly every sample (measured on tsc: of the frames that missed, half were baseline frames
 * at a return address and bytecode array seen before, 40 % TurboFan frames). What such an
 * activation decodes to is fixed by its bytecode array (one SharedFunctionInfo's) or Code, pc,
 * offset and caller's marker, as for a keyed one; what is no longer given is that the array or
 * Code is still the one decoded (a frame holds what it runs alive; an entry does not): a hit is
 * used only when, read after the stop, the array's identity is the entry's
 * (frame_memo_anchor_id), or the Code that holds the pc is the entry's Code (code_find).
 * False when there is no such key (no object in the bytecode-array slot; not optimized). */
bool frame_memo_anchored_key(const struct memo_key *k, enum memo_anchor how, struct memo_key *out);
/* The identity of the BytecodeArray at tagged address bca, through h (the copy): bca_identity,
 * as the positions cache compares it (false: not a BytecodeArray with a position table there). */
bool frame_memo_anchor_id(const struct v8_heap *h, uint64_t bca, uint64_t id[2]);
/* Are there JS frames among a found entry's (not only a builtin's)? */
bool frame_memo_has_js(const struct frame_memo *m, struct memo_ref ref);
/* The anchor identity a found entry was made with (zeros for an entry keyed where it is). */
const uint64_t *frame_memo_anchor(const struct frame_memo *m, struct memo_ref ref);
/* The receiver slot of rf (from the stack copy). */
bool frame_memo_receiver(const struct v8_layout *L, struct memsrc *stack, const struct raw_frame *rf,
			 uint64_t *receiver);
/* What of the receiver an entry must match: its map (read through mem, where the receiver's map
 * word was copied after the stop), or a Smi itself. */
bool frame_memo_receiver_id(const struct v8_layout *L, struct memsrc *mem, uint64_t receiver, uint64_t *id);
/* Is there a committed entry for k (*ref then says where)? */
bool frame_memo_find(struct frame_memo *m, const struct memo_key *k, struct memo_ref *ref);
/* The frames of a found entry (*n of them), and the receiver id it was decoded with. */
const struct frame *frame_memo_frames(const struct frame_memo *m, struct memo_ref ref, int *n,
				      uint64_t *receiver);
/* Remember what frames[0..n) decoded for k, pending frame_memo_commit (not kept when n is 0 or
 * over MEMO_MAX_FRAMES, or when a frame is neither a named JS frame at a known position with a
 * known definition line nor a named builtin). anchor: NULL, or for an anchored key what it
 * runs as it was (struct memo_entry's anchor). */
void frame_memo_stage(struct frame_memo *m, const struct memo_key *k, uint64_t receiver,
		      const uint64_t *anchor, const struct frame *frames, int n);
/* The walk's sample is done: keep its staged entries when it validated, else forget them. */
void frame_memo_commit(struct frame_memo *m, bool validated);

#endif
