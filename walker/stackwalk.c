/* stackwalk.c — raw frames → mixed frames. A raw frame whose PC is in V8 code (JIT, builtins) is
 * decoded at its frame pointer: a JS frame yields the function (named from the heap), a typed
 * frame its builtin or frame-type name. A frameless builtin at the top of the stack runs on its JS
 * caller's frame, so it is shown as a leaf above that caller. */
#include "stackwalk.h"

#include <stdio.h>
#include <string.h>

#include "../util/clock.h"
#include "../v8/bytecode.h"
#include "../v8/frames.h"
#include "../v8/heap.h"
#include "../sourcemap/store.h"
#include "jit_names.h"
#include "prefetch.h"
#include "unwind_arch.h"
#include "raw_class.h"
#include "v8_self.h"

void stackwalk_init(struct stackwalk *sw, struct addrspace *as, const struct v8_runtime *rt,
		    struct intern *strings, bool native_params)
{
	memset(sw, 0, sizeof(*sw));
	sw->as = as;
	sw->rt = rt;
	sw->strings = strings;
	unwinder_init(&sw->unw, as);
	script_cache_init(&sw->scripts, strings);
	function_cache_init(&sw->funcs, strings, &sw->scripts);
	native_names_init(&sw->natives, as, strings, native_params);
	positions_init(&sw->positions);
	map_types_init(&sw->map_types);
	callsite_names_init(&sw->callsites, strings, &sw->funcs, &sw->scripts, &sw->positions);
	frame_memo_init(&sw->memo);
	pc_class_cache_init(&sw->classes);
	if (rt && rt->mod < as->nmods) {
		struct elf_image *img = addrspace_image(as, &as->mods[rt->mod]);
		if (img)
			bytecode_sizes_load(&sw->positions.sizes, img);
	}
	async_frames_init(&sw->async);
	sw->s_empty = intern_str(strings, "");
	sw->s_unknown_jit = intern_str(strings, "[unknown] (JIT code)");
	sw->s_async_moved = intern_str(strings, "[async callers moved by GC before they were read]");
	sw->s_async_changed = intern_str(strings, "[async callers changed before they were read]");
	sw->s_wasm = intern_str(strings, "<wasm>");
}

void stackwalk_free(struct stackwalk *sw)
{
	unwinder_free(&sw->unw);
	function_cache_free(&sw->funcs);
	script_cache_free(&sw->scripts);
	native_names_free(&sw->natives);
	positions_free(&sw->positions);
	map_types_free(&sw->map_types);
	callsite_names_free(&sw->callsites);
	frame_memo_free(&sw->memo);
	pc_class_cache_free(&sw->classes);
	async_frames_free(&sw->async);
}

static struct frame *push(struct frame *out, int *n, int max, enum frame_kind kind, uint64_t pc)
{
	if (*n >= max)
		return NULL;
	struct frame *f = &out[(*n)++];
	memset(f, 0, sizeof(*f));
	f->kind = (uint8_t)kind;
	f->pc = pc;
	return f;
}

static void emit_builtin(struct stackwalk *sw, const struct pc_info *pi, uint64_t pc,
			 struct frame *out, int *n, int max)
{
	struct frame *f = push(out, n, max, FK_BUILTIN, pc);
	if (f)
		f->name = native_symbol_name(&sw->natives, pi->builtin);
}

/* Was the frame at fp called through `new` (is its caller a Construct frame)? Only the caller's
 * marker slot is read (a JS caller's function is not: it may be a frame the memo has, whose objects
 * were not copied). */
static bool called_as_constructor(const struct v8_heap *h, uint64_t fp)
{
	uint64_t caller_fp;
	int32_t type;
	return mem_read_u64(h->mem, fp, &caller_fp) && v8_read_frame_type(h, caller_fp, &type) &&
	       v8_frame_type_is_construct(h->L, type);
}

/* Name, file and position of a JS frame (the definition when the position is unknown). */
static void describe_js(struct stackwalk *sw, const struct v8_heap *h, const struct callsite *cs,
			int32_t script_offset, struct frame *f)
{
	const struct v8_function *fn = cs->fn;
	f->name = callsite_name(&sw->callsites, h, cs);
	f->file = callsite_file(&sw->callsites, h, fn);
	f->def_line = fn->def_line;
	f->def_col = fn->def_col;
	f->start_line = fn->start_line;
	f->start_col = fn->start_col;
	f->fn_name = fn->name_id;
	/* the function cache validated the SharedFunctionInfo, whose script field is unchanged */
	struct v8_script *s = NULL;
	if (fn->has_script && !(s = script_cached(&sw->scripts, fn->script)))
		s = script_get(&sw->scripts, h, fn->script);
	if (!s || script_offset < 0 ||
	    !script_position(&sw->scripts, h, s, script_offset, &f->line, &f->col)) {
		f->line = fn->def_line;
		f->col = fn->def_col;
		f->at_def = true;
	}
	f->script = s ? s->addr : 0;
}

/* One JS frame at position pos of function fn: its own, named with the receiver of the frame vf,
 * or (vf NULL) one with no receiver on the stack (an inlined function). NULL when out is full. */
static struct frame *emit_function(struct stackwalk *sw, const struct v8_heap *h,
				   const struct js_position *pos, const struct v8_function *fn,
				   const struct v8_frame *vf, const struct raw_frame *rf,
				   struct frame *out, int *n, int max)
{
	struct frame *f = push(out, n, max, pos->inlined ? FK_JS_INLINED : FK_JS, rf->pc);
	if (!f)
		return NULL;
	/* class constructors cannot be called without `new`; optimized callers may construct
	 * without a Construct frame in between */
	struct callsite cs = {.fn = fn};
	cs.constructor = function_flag(h->L, fn, L_SFI_CLASS_CTOR_BIT);
	if (vf) {
		cs.function = vf->function;
		cs.receiver_known = rf->fp_ok && mem_read_u64(h->mem, rf->fp + (int64_t)h->L->v[L_FP_ARGS], &cs.receiver);
		cs.constructor |= called_as_constructor(h, rf->fp);
	}
	describe_js(sw, h, &cs, pos->script_offset, f);
	f->tier = (uint8_t)(fn->has_script ? pos->tier : TIER_BUILTIN);
	return f;
}

/* One frame per function the JS frame is executing: inlined ones first, then its own. The frame's
 * own function is named with its receiver; inlined ones have no receiver on the stack. */
static int emit_js(struct stackwalk *sw, const struct v8_heap *h, const struct v8_frame *vf,
		   const struct js_site *site, const struct raw_frame *rf, const struct pc_info *pi,
		   struct frame *out, int *n, int max)
{
	struct js_position pos[64];
	int np = js_frame_positions(&sw->positions, h, vf, site, pos, 64);
	int emitted = 0;
	for (int i = 0; i < np; i++) {
		const struct v8_function *fn = function_of_sfi(&sw->funcs, h, pos[i].sfi);
		if (!fn)
			continue;
		if (!pos[i].inlined && callsite_hidden(h, fn)) {
			/* a builtin closure V8 keeps out of stack traces: show the builtin */
			struct frame *f = push(out, n, max, FK_BUILTIN, rf->pc);
			if (f)
				f->name = pi->builtin ? native_symbol_name(&sw->natives, pi->builtin) : fn->name_id;
			emitted++;
			continue;
		}
		if (!emit_function(sw, h, &pos[i], fn, pos[i].inlined ? NULL : vf, rf, out, n, max))
			break;
		emitted++;
	}
	return emitted;
}

/* Is the top of the stack what a function's prologue or epilogue leaves there: its return address
 * into V8 code at sp (before it pushed its caller's frame pointer, or after it popped it), or that
 * frame pointer at sp and the return address above it? (A pc deep in a function's body has its own
 * frame's slots at sp: without this, a pc that a code cache maps to a dead function's code would
 * be taken for that function's prologue.) */
static bool return_address_at_sp(struct stackwalk *sw, struct memsrc *mem, const struct raw_frame *rf,
				 const struct regset *regs)
{
	uint64_t w[2], ret;
	if (!mem_read(mem, rf->sp, w, sizeof(w)))
		return false;
	/* (arm64: before the prologue saved it, the return address is in the link register) */
	if (w[0] == rf->fp)
		ret = regs ? reg_strip_pac(regs, w[1]) : w[1];
	else if (!regs || !unwind_top_link(regs, &ret))
		ret = w[0];
	struct pc_info pi;
	v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, ret - 1, &pi);
	return pi.cls == PC_JIT || pi.cls == PC_BUILTIN;
}

/* The frames of a top pc in optimized code that runs without its frame (a prologue, an epilogue:
 * positions_frameless_code), named as inlined functions are, without a receiver; the count. */
static int emit_frameless_code(struct stackwalk *sw, const struct v8_heap *h, const struct v8_frame *vf,
			       const struct raw_frame *rf, const struct regset *regs, struct frame *out,
			       int *n, int max)
{
	if (!return_address_at_sp(sw, h->mem, rf, regs))
		return 0;
	struct js_position pos[64];
	int np = positions_frameless_code(&sw->positions, h, rf->pc, vf->kind == VF_JS ? vf->function : 0, pos, 64);
	int emitted = 0;
	for (int i = 0; i < np; i++) {
		const struct v8_function *fn = function_of_sfi(&sw->funcs, h, pos[i].sfi);
		if (!fn)
			continue;
		if (!emit_function(sw, h, &pos[i], fn, NULL, rf, out, n, max))
			break;
		emitted++;
	}
	return emitted;
}

static bool has_js(const struct frame *f, int from, int to)
{
	for (int i = from; i < to; i++)
		if (f[i].kind == FK_JS || f[i].kind == FK_JS_INLINED)
			return true;
	return false;
}

/* An async frame: a suspended async function at the position it awaits, named as Error.stack
 * names it ("async fn"), or a combinator's element ("async Promise.all (index 1)"). False when its
 * function cannot be read. */
bool stackwalk_async_frame(struct stackwalk *sw, const struct v8_heap *h, const struct async_frame *af,
			   struct frame *f)
{
	static const char *const combinators[] = {[AF_ALL] = "all", [AF_ALLSETTLED] = "allSettled", [AF_ANY] = "any"};
	memset(f, 0, sizeof(*f));
	f->kind = FK_JS_ASYNC;
	char buf[96];
	if (af->kind != AF_FUNCTION) {
		snprintf(buf, sizeof(buf), "async Promise.%s (index %d)", combinators[af->kind], (int)af->index);
		f->name = f->fn_name = intern_str(sw->strings, buf);
		return true;
	}
	const struct v8_function *fn = function_of_jsfunction(&sw->funcs, h, af->function);
	if (!fn)
		return false;
	struct callsite cs = {.fn = fn, .function = af->function, .receiver = af->receiver,
			      .receiver_known = true, .async = true};
	int32_t offset = -1;
	uint64_t bca = af->suspend_pos >= 0 ? sfi_bytecode_array(h, fn->sfi) : 0;
	int64_t bc = bca ? bca_offset_from_frame(h, bca, af->suspend_pos) : -1;
	if (bc >= 0)
		offset = positions_bytecode_offset_position(&sw->positions, h, bca, bc);
	describe_js(sw, h, &cs, offset, f);
	/* its own name, marked as the awaiting function it is (profiles name functions by it) */
	const char *own = intern_get(sw->strings, fn->name_id);
	snprintf(buf, sizeof(buf), "async %.80s", *own ? own : "(anonymous)");
	f->fn_name = intern_str(sw->strings, buf);
	f->tier = TIER_INTERPRETED;
	return true;
}

/* --async: the microtask queue's frames under a resumed function replaced by the async functions
 * awaiting it (or by one frame saying why they cannot be told); ndecoded raw frames were decoded
 * into out[0..*n). */
static void splice_async(struct stackwalk *sw, const struct v8_heap *h, struct frame *out, int *n, int max,
			 int ndecoded)
{
	struct async_site site;
	for (int i = 0; i < ndecoded; i++)
		sw->raw_js[i] = has_js(out, sw->out_at[i], sw->out_at[i + 1]);
	if (!async_site_find(&sw->async, h, sw->rt, sw->as, &sw->classes, sw->raw, ndecoded, sw->raw_js, &site) ||
	    site.to >= ndecoded)
		return;
	enum async_outcome how;
	int na = async_site_chain(&sw->async, h, &site, sw->async_chain, ASYNC_MAX_FRAMES, &how);
	int k = 0;
	for (int i = 0; i < na && how == AO_CHAIN; i++) {
		if (stackwalk_async_frame(sw, h, &sw->async_chain[i], &sw->async_out[k]))
			k++;
		else if (sw->async.live)
			how = AO_CHANGED; /* a function that cannot be read now: the chain ran on */
	}
	how = async_frames_check(&sw->async, how, k);
	if (how != AO_CHAIN) {
		memset(&sw->async_out[0], 0, sizeof(sw->async_out[0]));
		sw->async_out[0].kind = FK_UNKNOWN;
		sw->async_out[0].name = how == AO_MOVED ? sw->s_async_moved : sw->s_async_changed;
		k = 1;
	}
	int a0 = sw->out_at[site.from], a1 = sw->out_at[site.to + 1];
	int tail = *n - a1;
	if (tail > max - a0 - k)
		tail = max - a0 - k; /* the outermost frames give way */
	if (tail < 0)
		return;
	memmove(&out[a0 + k], &out[a1], sizeof(*out) * (size_t)tail);
	memcpy(&out[a0], sw->async_out, sizeof(*out) * (size_t)k);
	*n = a0 + k + tail;
}

static void emit_typed(struct stackwalk *sw, int32_t type, uint64_t pc, struct frame *out, int *n,
		       int max)
{
	const char *tn = v8_frametype_name(&sw->rt->L, type);
	char buf[96];
	snprintf(buf, sizeof(buf), "<%s>", tn ? tn : "V8 frame");
	struct frame *f = push(out, n, max, FK_V8_TYPED, pc);
	if (f)
		f->name = intern_str(sw->strings, buf);
}

/* A WebAssembly frame, named by its module (v8/wasm.h): "<wasm>" in the module's url. */
static bool emit_wasm(struct stackwalk *sw, const struct v8_heap *h, const struct v8_frame *vf,
		      const struct raw_frame *rf, struct frame *out, int *n, int max)
{
	if (!v8_has(&sw->rt->L, L_FT_WASM) || vf->type != sw->rt->L.v[L_FT_WASM])
		return false;
	uint64_t addr = wasm_frame_script(h, rf->fp, &sw->wasm);
	struct v8_script *script = addr ? script_get(&sw->scripts, h, addr) : NULL;
	if (!script || !script->name_id || !intern_len(sw->strings, script->name_id))
		return false;
	struct frame *f = push(out, n, max, FK_WASM, rf->pc);
	if (f) {
		f->name = sw->s_wasm;
		f->file = script->name_id;
	}
	return true;
}

/* Of the nwords (at most 8) words just above the stack pointer, those that are return addresses into
 * code of class cls, nearest first: where the caller of a frameless builtin (or of a function still
 * in its prologue) left its own — after the link register's, where the machine has one (regs: the
 * top frame's registers, or NULL). */
static int code_words_above_sp(struct stackwalk *sw, struct memsrc *mem, const struct regset *regs,
			       uint64_t sp, int nwords, enum pc_class cls, uint64_t *out, int max)
{
	uint64_t words[9];
	int n = 0, nw = 0;
	if (nwords > 8)
		return 0;
	if (regs && unwind_top_link(regs, &words[0]))
		nw = 1;
	if (!mem_read(mem, sp, words + nw, sizeof(words[0]) * (size_t)nwords))
		return 0;
	nw += nwords;
	for (int i = 0; i < nw && n < max; i++) {
		struct pc_info pi;
		v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, words[i] - 1, &pi);
		if (pi.cls == cls)
			out[n++] = words[i];
	}
	return n;
}

/* The builtin whose return address is nearest above sp: the caller a function still in its
 * prologue (or already in its epilogue) returns to, when the frame at fp is that builtin's. */
static bool emit_builtin_above_sp(struct stackwalk *sw, struct memsrc *mem, const struct regset *regs,
				  uint64_t sp, struct frame *out, int *n, int max)
{
	uint64_t ret[4];
	int nret = code_words_above_sp(sw, mem, regs, sp, 4, PC_BUILTIN, ret, 4);
	for (int i = 0; i < nret; i++) {
		struct pc_info pi;
		v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, ret[i] - 1, &pi);
		if (pi.builtin) {
			emit_builtin(sw, &pi, ret[i], out, n, max);
			return true;
		}
	}
	return false;
}

/* --v8-self: does V8's profiler charge the JavaScript frame at fp of a raw frame whose pc is in a
 * builtin? Its iterator (frames.cc) takes a frame that returns into a builtin for an interpreted
 * frame only when the builtin is one of the interpreter's entries (v8self_interpreter_entry);
 * any other such frame is charged to the code at its pc, a builtin, which --cpu-prof's code map
 * does not hold: the function is left out (a bytecode handler or a builtin that ran on the
 * frame and called on). At the top the iterator starts at the caller of the frame at fp, unless
 * the pc is in a bytecode handler without a frame of its own and the word at sp is a return
 * address into an interpreter entry (IsNoFrameBytecodeHandlerPc): a handler that pushed
 * anything, or any other builtin, loses the frame it runs on. */
static bool v8_charges_frame_at_fp(struct stackwalk *sw, const struct v8_heap *h, const struct raw_frame *rf,
				   bool top, const struct pc_info *pi)
{
	uint64_t ret = rf->pc;
	if (top && (!pi->bytecode_handler || !mem_read_u64(h->mem, rf->sp, &ret)))
		return false;
	struct pc_info at;
	v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, ret, &at);
	return at.cls == PC_BUILTIN && v8self_interpreter_entry(at.builtin, &sw->rt->version);
}

/* One raw frame in V8 code (JIT, builtins) or unmapped code reached by the frame-pointer chain. */
static void decode_v8(struct stackwalk *sw, const struct v8_heap *h, const struct raw_frame *rf,
		      bool top, const struct regset *regs, const struct pc_info *pi,
		      struct frame *out, int *n, int max, struct walk_stats *st)
{
	struct v8_frame vf;
	bool is_builtin = pi->cls == PC_BUILTIN && pi->builtin;
	bool frameless_builtin = top && is_builtin && pi->role != BR_INTERPRETER;
	if (!rf->fp_ok || !v8_read_frame(h, rf->fp, &vf))
		vf.kind = VF_BAD;
	/* WebAssembly code: a frame V8 typed as one runs it. First: on V8 13 its pc can lie in
	 * optimized code the heap holds for the module's exported function, which the case below
	 * would name instead */
	if (vf.kind == VF_TYPED && !is_builtin && emit_wasm(sw, h, &vf, rf, out, n, max))
		return;
	/* a pc in optimized code the frame at fp does not run: a function in its prologue or
	 * epilogue, its caller's frame still at fp (V8's profiler names the pc's function too, then
	 * walks on from the caller of the frame at fp: --v8-self leaves that frame out) */
	bool frameless_code = top && pi->cls == PC_JIT && vf.kind != VF_BAD &&
			      emit_frameless_code(sw, h, &vf, rf, regs, out, n, max) > 0;
	if (frameless_code) {
		st->js_frames++;
		if (sw->v8_self)
			return;
		if (vf.kind != VF_JS) {
			if (!emit_builtin_above_sp(sw, h->mem, regs, rf->sp, out, n, max) && vf.kind == VF_TYPED)
				emit_typed(sw, vf.type, rf->pc, out, n, max);
			return;
		}
	}
	bool frameless = frameless_builtin || frameless_code;
	if (vf.kind == VF_JS && sw->v8_self && is_builtin && !v8_charges_frame_at_fp(sw, h, rf, top, pi)) {
		/* --v8-self: the JS frame a builtin runs on (or returns into) is not in V8's sample:
		 * the builtin's caller's caller is charged */
		emit_builtin(sw, pi, rf->pc, out, n, max);
		return;
	}
	if (vf.kind == VF_JS) {
		if (frameless_builtin)
			emit_builtin(sw, pi, rf->pc, out, n, max);
		uint64_t cand[8];
		struct js_site site = {
		    .pc = rf->pc,
		    .top = top,
		    .pc_in_frame = !frameless,
		    .pc_in_jit = pi->cls == PC_JIT && !frameless_code,
		    .in_handler = top && is_builtin && pi->bytecode_handler,
		    .regs = regs,
		    .ret_candidates = cand,
		    .ncandidates = top ? code_words_above_sp(sw, h->mem, regs, rf->sp, 8, PC_JIT, cand, 8) : 0,
		};
		if (emit_js(sw, h, &vf, &site, rf, pi, out, n, max) > 0) {
			st->js_frames++;
			return;
		}
		st->bad_v8++;
		if (!frameless) {
			if (is_builtin)
				emit_builtin(sw, pi, rf->pc, out, n, max);
			else if (push(out, n, max, FK_UNKNOWN, rf->pc))
				out[*n - 1].name = sw->s_unknown_jit;
		}
		return;
	}
	if (is_builtin) {
		emit_builtin(sw, pi, rf->pc, out, n, max);
		return;
	}
	if (vf.kind == VF_TYPED) {
		emit_typed(sw, vf.type, rf->pc, out, n, max);
		return;
	}
	st->bad_v8++;
	struct frame *f = push(out, n, max, FK_UNKNOWN, rf->pc);
	if (f)
		f->name = pi->cls == PC_JIT ? sw->s_unknown_jit : 0; /* 0: named as native later */
}

/* A frame whose pc is in the interpreter's builtins: an interpreted frame. */
static bool returns_to_interpreter(const struct pc_info *pi)
{
	return pi->cls == PC_BUILTIN && pi->role == BR_INTERPRETER;
}

/* How raw frame i can be keyed by what it runs (MEMO_AT_FP: not). */
static enum memo_anchor anchor_kind(bool interpreted, const struct v8_code *code)
{
	if (interpreted)
		return MEMO_BY_BYTECODE;
	if (code && code->tier == CT_BASELINE)
		return MEMO_BY_BASELINE;
	if (code && (code->tier == CT_MAGLEV || code->tier == CT_TURBOFAN))
		return MEMO_BY_CODE;
	return MEMO_AT_FP;
}

/* What a hit under an anchored key is checked against, copied with the batch: the bytecode
 * array, or what code_find reads of the cached Code that holds the pc. */
static void also_copy(struct stackwalk *sw, int i)
{
	struct prefetch_also *a = &sw->memo_also;
	if (a->n + 2 > PREFETCH_MAX_OBJECTS)
		return;
	if (sw->memo_akey[i].anchored == MEMO_BY_CODE) {
		a->n += (size_t)code_check_ranges(&sw->positions.codes, &sw->rt->L, sw->raw[i].pc - 1,
						  a->addr + a->n, a->len + a->n);
		return;
	}
	a->addr[a->n] = sw->memo_akey[i].bytecode_array - 1;
	a->len[a->n++] = 64;
}

/* Which raw frames are activations the memo already decoded (their objects are not copied). */
static void look_up_memo(struct stackwalk *sw, struct memsrc *mem, int nraw)
{
	memset(sw->memo_hit, 0, sizeof(sw->memo_hit[0]) * (size_t)nraw);
	memset(sw->memo_keyed, 0, sizeof(sw->memo_keyed[0]) * (size_t)nraw);
	memset(sw->memo_anchored, 0, sizeof(sw->memo_anchored[0]) * (size_t)nraw);
	memset(sw->by_anchor, 0, sizeof(sw->by_anchor[0]) * (size_t)nraw);
	sw->memo_also.n = 0;
	if (!sw->memo_on || !sw->rt)
		return;
	frame_memo_begin_walk(&sw->memo);
	for (int i = 0; i < nraw; i++) {
		struct pc_info pi;
		/* native code (with unwind information: a stripped libnode's builtins have none) is
		 * not a JS activation: not looked up */
		v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, sw->raw[i].pc - 1, &pi);
		const struct v8_code *code = pi.cls == PC_JIT ? code_cached_at(&sw->positions.codes, sw->raw[i].pc - 1) : NULL;
		bool optimized = code && (code->tier == CT_MAGLEV || code->tier == CT_TURBOFAN);
		bool interpreted = returns_to_interpreter(&pi);
		sw->memo_keyed[i] = !(pi.cls == PC_NATIVE && !sw->raw[i].no_cfi) &&
				    frame_memo_key(&sw->rt->L, mem, &sw->raw[i], interpreted, optimized, &sw->memo_key[i]);
		sw->memo_anchored[i] = sw->memo_keyed[i] &&
				       frame_memo_anchored_key(&sw->memo_key[i], anchor_kind(interpreted, code), &sw->memo_akey[i]);
		if (sw->memo_keyed[i] && frame_memo_find(&sw->memo, &sw->memo_key[i], &sw->memo_ref[i])) {
			sw->memo_hit[i] = frame_memo_has_js(&sw->memo, sw->memo_ref[i]) ? PREFETCH_SKIP_JS : PREFETCH_SKIP_NOT_JS;
		} else if (sw->memo_anchored[i] && frame_memo_find(&sw->memo, &sw->memo_akey[i], &sw->memo_ref[i])) {
			if (frame_memo_has_js(&sw->memo, sw->memo_ref[i])) {
				sw->memo_hit[i] = PREFETCH_SKIP_JS;
				sw->by_anchor[i] = true;
				also_copy(sw, i);
			}
		}
	}
}

/* What an entry keyed by what raw frame i runs must match: the identity of its bytecode array,
 * or its Code and instruction start (through mem, which holds them since the batch). */
static bool anchor_now(struct stackwalk *sw, struct memsrc *mem, int i, uint64_t id[2])
{
	const struct v8_heap h = {.mem = mem, .L = &sw->rt->L, .types = &sw->map_types};
	if (sw->memo_akey[i].anchored != MEMO_BY_CODE)
		return frame_memo_anchor_id(&h, sw->memo_akey[i].bytecode_array, id);
	struct v8_code c;
	if (!code_find(&sw->positions.codes, &h, sw->raw[i].pc - 1, 0, &c))
		return false;
	id[0] = c.code;
	id[1] = c.start;
	return true;
}

/* A frame found under its anchored key: does it run what the entry was decoded from? */
static bool anchor_holds(struct stackwalk *sw, struct memsrc *mem, int i)
{
	uint64_t id[2];
	if (anchor_now(sw, mem, i, id) && !memcmp(id, frame_memo_anchor(&sw->memo, sw->memo_ref[i]), sizeof(id)))
		return true;
	sw->memo.anchor_changed++;
	return false;
}

/* Raw frame i as the memo has it: true when it did. */
static bool from_memo(struct stackwalk *sw, struct memsrc *mem, int i, struct frame *out, int *n,
		      int max, struct walk_stats *st)
{
	if (!sw->memo_hit[i])
		return false;
	int nf;
	uint64_t receiver, was, now;
	const struct frame *f = frame_memo_frames(&sw->memo, sw->memo_ref[i], &nf, &was);
	if (sw->by_anchor[i] && !anchor_holds(sw, mem, i))
		return false;
	/* its receiver's map (copied after the stop) must be the one it was named with */
	if (!frame_memo_receiver(&sw->rt->L, mem, &sw->raw[i], &receiver) ||
	    !frame_memo_receiver_id(&sw->rt->L, mem, receiver, &now) || now != was) {
		sw->memo.other_receiver++;
		return false;
	}
	for (int k = 0; k < nf && *n < max; k++)
		out[(*n)++] = f[k];
	/* found by what it runs: kept where it is too, so that the next samples of this
	 * activation copy nothing of it but its receiver's map word */
	if (sw->by_anchor[i])
		frame_memo_stage(&sw->memo, &sw->memo_key[i], was, NULL, f, nf);
	st->js_frames++;
	return true;
}

void stackwalk_memo_commit(struct stackwalk *sw, bool validated)
{
	frame_memo_commit(&sw->memo, validated);
}

int stackwalk_unwind(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		     const struct stack_bounds *bounds, struct walk_stats *st)
{
	memset(st, 0, sizeof(*st));
	int nraw = unwind_stack(&sw->unw, regs, mem, bounds, sw->raw, STACKWALK_MAX_FRAMES, &st->end);
	st->raw_frames = nraw;
	uint64_t t0 = now_ns();
	look_up_memo(sw, mem, nraw);
	prefetch_js_objects(sw->rt, sw->as, mem, sw->raw, nraw, sw->memo_hit, &sw->memo_also, &sw->prefetched);
	st->prefetch_ns = now_ns() - t0;
	return nraw;
}

int stackwalk_capture(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		      const struct stack_bounds *bounds, struct frame *out, int max,
		      struct walk_stats *st)
{
	stackwalk_unwind(sw, regs, mem, bounds, st);
	struct prefetch_hints hints = {.types = &sw->map_types, .positions = &sw->positions,
				       .raw = sw->raw, .nraw = st->raw_frames, .skip = sw->memo_hit};
	prefetch_js_details(sw->rt, &hints, mem, &sw->prefetched);
	int n = stackwalk_decode(sw, regs, mem, out, max, st);
	stackwalk_memo_commit(sw, true);
	return n;
}

/* --v8-self: V8's symbolizer (src/profiler/symbolizer.cc, SymbolizeTickSample) charges the pc's
 * own CodeEntry, the function the code was compiled for, and expands a code object's inlining
 * stack only for return addresses (sample.stack): drop the inlined frames one physical frame at
 * an exact pc produced (out[from, to)); returns the new end. V8 14 expands the pc's too
 * (UnwindInlineStack: called for the pc and the stack in Node 26's V8 14.6; Node 24's 13.6 and
 * older call GetInlineStack for the stack only), so this applies before it. */
#define V8_PC_INLINING_EXPANDED V8V(14, 0, 0)
static int drop_inlined(struct frame *f, int from, int to)
{
	int k = from;
	for (int i = from; i < to; i++)
		if (f[i].kind != FK_JS_INLINED)
			f[k++] = f[i];
	return k;
}

/* Frames out[from, to) less the JavaScript ones; returns the new end. */
static int drop_js(struct frame *f, int from, int to)
{
	int k = from;
	for (int i = from; i < to; i++)
		if (f[i].kind != FK_JS && f[i].kind != FK_JS_INLINED && f[i].kind != FK_JS_ASYNC)
			f[k++] = f[i];
	return k;
}

/* --v8-self: does V8 discard this sample (TickSample::GetStackSample, IsNoFrameRegion: the
 * first exact pc, in V8's code range — JIT code or the builtins' copy remapped into it — is where
 * a frame is set up or torn down)? TickSample::Init then returns before it stamps the sample's
 * time, and CpuProfile::AddPath keeps no sample without one: "(program)"'s hit count in the
 * profile's tree grows, its samples and timeDeltas do not. */
static bool v8_discards(struct stackwalk *sw, struct memsrc *mem, int nraw)
{
	for (int i = 0; i < nraw; i++) {
		const struct raw_frame *rf = &sw->raw[i];
		if (rf->how != FRAME_TOP && rf->how != FRAME_SIGNAL_RESUME)
			continue;
		struct pc_info pi;
		v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, rf->pc, &pi);
		uint64_t primary;
		bool remapped = pi.cls == PC_BUILTIN && pi.mod && module_runtime_addr(pi.mod, pi.vaddr, &primary) &&
				primary != rf->pc;
		if (pi.cls == PC_JIT || remapped)
			return v8self_no_frame_region(mem, rf->pc);
		if (pi.cls != PC_NATIVE)
			return false;
	}
	return false;
}

/* Raw frame i into out[*n…]: a native frame, a JS activation from the memo, or a decoded one. */
static void decode_frame(struct stackwalk *sw, const struct v8_heap *h, struct memsrc *mem,
			 const struct regset *regs, int i, bool pc_uninlined, bool *seen_js,
			 struct frame *out, int *n, int max, struct walk_stats *st)
{
	const struct raw_frame *rf = &sw->raw[i];
	bool exact = rf->how == FRAME_TOP || rf->how == FRAME_SIGNAL_RESUME;
	struct pc_info pi;
	raw_frame_classify(sw->rt, sw->as, &sw->classes, rf, &pi);
	if (pi.cls == PC_NATIVE || !sw->rt) {
		struct frame *f = push(out, n, max, FK_NATIVE, rf->pc);
		if (f)
			f->is_return = !exact;
		return;
	}
	if (from_memo(sw, mem, i, out, n, max, st)) {
		*seen_js = true;
		return;
	}
	int first = *n;
	decode_v8(sw, h, rf, exact, rf->how == FRAME_TOP ? regs : NULL, &pi, out, n, max, st);
	/* decoded: kept for the next walks under the key look_up_memo made */
	uint64_t receiver, id, anchor[2];
	if (sw->memo_keyed[i] && frame_memo_receiver(h->L, mem, rf, &receiver) &&
	    frame_memo_receiver_id(h->L, mem, receiver, &id)) {
		frame_memo_stage(&sw->memo, &sw->memo_key[i], id, NULL, out + first, *n - first);
		if (sw->memo_anchored[i] && anchor_now(sw, mem, i, anchor))
			frame_memo_stage(&sw->memo, &sw->memo_akey[i], id, anchor, out + first, *n - first);
	}
	if (pc_uninlined && exact && !*seen_js)
		*n = drop_inlined(out, first, *n);
	*seen_js |= has_js(out, first, *n);
	if (*n > 0 && out[*n - 1].kind == FK_UNKNOWN && out[*n - 1].name == 0) {
		out[*n - 1].kind = FK_NATIVE;
		out[*n - 1].is_return = !exact;
	}
}

/* The late reads made so far (0 when they are not tracked). */
static unsigned long late_reads(const struct stackwalk *sw)
{
	return sw->live_reads ? *sw->live_reads : 0;
}

void stackwalk_begin_names(struct stackwalk *sw)
{
	function_cache_begin_walk(&sw->funcs);
	script_cache_begin_walk(&sw->scripts);
	code_finder_begin_walk(&sw->positions.codes);
}

int stackwalk_decode(struct stackwalk *sw, const struct regset *regs, struct memsrc *mem,
		     struct frame *out, int max, struct walk_stats *st)
{
	stackwalk_begin_names(sw);
	int nraw = st->raw_frames;
	struct v8_heap h = {.mem = mem, .L = sw->rt ? &sw->rt->L : NULL, .types = &sw->map_types};
	int n = 0;
	bool seen_js = false;
	bool pc_uninlined = sw->v8_self && sw->rt &&
			    v8_version_key(&sw->rt->version) < V8_PC_INLINING_EXPANDED;
	/* which frames read beyond the copy (what a validation re-reads: walker/validate.h) */
	unsigned long live_at_start = late_reads(sw), live_in_frames = 0;
	memset(sw->read_live, 0, sizeof(sw->read_live[0]) * (size_t)nraw);
	int ndecoded = 0;
	for (int i = 0; i < nraw && n < max; i++) {
		unsigned long live_before = late_reads(sw);
		sw->out_at[i] = n;
		decode_frame(sw, &h, mem, regs, i, pc_uninlined, &seen_js, out, &n, max, st);
		unsigned long live = late_reads(sw) - live_before;
		sw->read_live[i] = live != 0;
		live_in_frames += live;
		ndecoded = i + 1;
	}
	sw->out_at[ndecoded] = n;
	sw->read_live_outside = late_reads(sw) - live_at_start != live_in_frames;
	/* a sample V8 records no time for is left out by the samplers; its frames, without the
	 * JavaScript ones V8 gave up on, stay for whoever walks for something else */
	st->v8_discarded = sw->v8_self && sw->rt && v8_discards(sw, mem, nraw);
	if (st->v8_discarded)
		n = drop_js(out, 0, n);
	/* (the chain's reads are checked by reading them again: async_frames_check) */
	else if (sw->async.on && sw->rt)
		splice_async(sw, &h, out, &n, max, ndecoded);
	if (st->end != UNWIND_COMPLETE && n < max) {
		struct frame *f = push(out, &n, max, FK_TRUNCATED, 0);
		if (f)
			f->name = intern_str(sw->strings, "[truncated]");
	}
	return n;
}

void stackwalk_name_natives(struct stackwalk *sw, struct frame *f, int n)
{
	for (int i = 0; i < n; i++) {
		if (f[i].kind != FK_NATIVE || f[i].name)
			continue;
		f[i].name = native_name(&sw->natives, f[i].pc, f[i].is_return, &f[i].file,
					&f[i].module_off);
		if (strncmp(intern_get(sw->strings, f[i].name), "[unknown]", 9) == 0)
			f[i].kind = FK_UNKNOWN;
	}
	if (sw->perfmap)
		name_jit_frames_from_perfmap(sw, f, n);
	if (sw->sourcemaps)
		sm_apply(sw->sourcemaps, f, n);
}
