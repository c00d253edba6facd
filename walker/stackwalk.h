/* stackwalk.h — the one stack walker for live samples, one-shot dumps and core files: unwind a
 * thread from its registers (hybrid CFI + frame pointers) and turn each raw frame into mixed
 * frames — JS functions named from V8's heap, builtins, typed V8 frames and native code. Stage 1
 * (stackwalk_capture) reads target memory and runs while the thread is stopped; stage 2
 * (stackwalk_name_natives) only reads ELF files and runs after the thread resumed. */
#ifndef V8WALK_STACKWALK_H
#define V8WALK_STACKWALK_H

#include <stdbool.h>
#include <stdint.h>

#include "../symtab/addrspace.h"
#include "../symtab/native_names.h"
#include "../symtab/perfmap.h"
#include "../util/intern.h"
#include "../v8/callsite.h"
#include "../v8/function.h"
#include "../v8/positions.h"
#include "../v8/runtime.h"
#include "../v8/scripts.h"
#include "../v8/wasm.h"
#include "async_frames.h"
#include "frame.h"
#include "frame_memo.h"
#include "prefetch.h"
#include "../mem/memsrc.h"
#include "../mem/regs.h"
#include "unwind.h"

struct sm_store;

enum { STACKWALK_MAX_FRAMES = 512 };

struct walk_stats {
	enum unwind_end end;
	int raw_frames;
	int js_frames;   /* named JS frames */
	int bad_v8;      /* frames in V8 code that could not be decoded */
	/* --v8-self: V8's profiler would record no sample here (its pc where a frame is set up or
	 * torn down): a sampler leaves it out of the profile */
	bool v8_discarded;
	uint64_t prefetch_ns; /* of stackwalk_unwind: the batched copy of the frames' objects */
};

struct stackwalk {
	struct addrspace *as;
	const struct v8_runtime *rt; /* NULL for a process without V8 */
	struct intern *strings;
	struct unwinder unw;
	struct script_cache scripts;
	struct function_cache funcs;
	struct native_names natives;
	struct positions positions;
	struct callsite_names callsites;
	struct map_types map_types;
	struct pc_class_cache classes; /* v8_classify_pc's answers for the pcs walks ask */
	struct wasm_modules wasm;      /* how a wasm frame leads to its module's Script */
	struct raw_frame raw[STACKWALK_MAX_FRAMES];
	struct prefetched prefetched; /* heap objects stackwalk_unwind copied for the last walk */
	/* --async: a stack resumed from the microtask queue continues through the async functions
	 * awaiting it (walker/async_frames.h), in place of the queue's frames */
	struct async_frames async;
	/* charge self time as V8's --cpu-prof does: when the pc itself (not a return address) is in
	 * optimized code, the sample's innermost frame is the function that code was compiled for;
	 * the functions inlined at that pc are left out (V8 before 14 expands inlining only at
	 * return addresses), and a frameless builtin's samples (but a bytecode handler's) go to the
	 * caller of the JS frame it runs on (V8 starts its stack at the caller of the frame at fp).
	 * Off by default: those inlined functions and that JS frame are what runs there. */
	bool v8_self;
	/* live sampling: frames of activations seen at earlier samples (walker/frame_memo.h), per
	 * walk: memo_keyed[i], raw frame i has a key (memo_key[i]), memo_anchored[i] an anchored
	 * one too (memo_akey[i]: interpreted, baseline and optimized frames); memo_hit[i], it is
	 * found under one of them (at memo_ref[i]; by_anchor[i]: the anchored one, whose check's
	 * ranges memo_also copies with the batch) and not decoded */
	bool memo_on;
	struct frame_memo memo;
	bool memo_keyed[STACKWALK_MAX_FRAMES];
	struct memo_key memo_key[STACKWALK_MAX_FRAMES];
	bool memo_anchored[STACKWALK_MAX_FRAMES];
	bool by_anchor[STACKWALK_MAX_FRAMES];
	struct memo_key memo_akey[STACKWALK_MAX_FRAMES];
	struct prefetch_also memo_also;
	uint32_t memo_hit[STACKWALK_MAX_FRAMES];
	struct memo_ref memo_ref[STACKWALK_MAX_FRAMES];
	/* reads a decode made beyond the batched copy, or of what such a read copied (the memsnap's
	 * late_reads; NULL: not tracked), and per walk which raw frames' decode made some
	 * (read_live[i]), or the walk outside any frame (read_live_outside): those are what a
	 * validation must re-read */
	const unsigned long *live_reads;
	bool read_live[STACKWALK_MAX_FRAMES];
	bool read_live_outside;
	struct perfmap *perfmap;   /* optional (NULL): names JIT code the heap cannot, in stage 2 */
	struct sm_store *sourcemaps; /* optional (NULL): source maps, applied in stage 2 */
	/* per walk: the first frame raw frame i produced (out_at[nraw]: the end), whether it
	 * produced a JS frame; the chain read for an async site and its frames */
	int out_at[STACKWALK_MAX_FRAMES + 1];
	bool raw_js[STACKWALK_MAX_FRAMES];
	struct async_frame async_chain[ASYNC_MAX_FRAMES];
	struct frame async_out[ASYNC_MAX_FRAMES];
	/* interned labels used on every walk */
	uint32_t s_empty, s_unknown_jit, s_async_moved, s_async_changed, s_wasm;
};

void stackwalk_init(struct stackwalk *sw, struct addrspace *as, const struct v8_runtime *rt,
		    struct intern *strings, bool native_params);
void stackwalk_free(struct stackwalk *sw);
/* Stage 1: frames innermost first; returns the count. stackwalk_unwind then stackwalk_decode. */
int stackwalk_capture(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		      const struct stack_bounds *bounds, struct frame *out, int max,
		      struct walk_stats *st);
/* Stage 1a, all that must see the thread stopped: unwind into sw->raw (st->end, st->raw_frames)
 * and copy into `mem` (a memsnap) the heap objects that identify each JS frame, in batched reads;
 * returns the raw frame count. */
int stackwalk_unwind(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		     const struct stack_bounds *bounds, struct walk_stats *st);
/* Stage 1b: turn sw->raw (from stackwalk_unwind with the same st) into mixed frames, reading what
 * the copy lacks (names, scripts, tables) through `mem`; may run after the thread resumed, and
 * then stackwalk_validate tells whether what it read still belongs to the copied frames. */
int stackwalk_decode(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		     struct frame *out, int max, struct walk_stats *st);
/* After stackwalk_decode (stackwalk_capture does it itself): with memo_on, keep the frames this
 * walk decoded for the activations to come if its sample validated, else forget them. */
void stackwalk_memo_commit(struct stackwalk *sw, bool validated);
/* Before names are asked outside a walk (stackwalk_async_frame): the caches keep within their
 * bounds; what they returned before may be gone. */
void stackwalk_begin_names(struct stackwalk *sw);
/* An async frame (a suspended async function at the await it waits in, or a combinator's
 * element) named as Error.stack names it, "async f" / "async Promise.all (index 1)"; false when
 * its function cannot be read. */
bool stackwalk_async_frame(struct stackwalk *sw, const struct v8_heap *h, const struct async_frame *af,
			   struct frame *f);
/* Stage 2: name the native frames left unnamed by stage 1 (and, with a perf map, the JIT frames
 * the heap could not name: walker/jit_names.h); with source maps, JS frames of mapped scripts
 * move to their original position (sourcemap/store.h). */
void stackwalk_name_natives(struct stackwalk *sw, struct frame *f, int n);

#endif
