/* test_frame_memo.c — an activation's decoded frames are reused only while the stack words that
 * identify it are unchanged, only from samples that validated, and only for a bounded time;
 * checked over a synthetic stack in the fake heap. */
#include <criterion/criterion.h>

#include "../../walker/frame_memo.h"
#include "fake_heap.h"
#include "frame_builders.h"

static struct fake_heap fh;
static struct frame_memo memo;
static struct intern strings;
static uint64_t stack, fp, caller_fp;
static struct raw_frame rf;
static const uint64_t RECEIVER_MAP = 0x4242421; /* the receiver id decode_once stages */

static void slot(uint64_t frame_fp, enum v8_item item, uint64_t v)
{
	uint64_t w = v;
	memcpy(fh_ptr(&fh, frame_fp + (uint64_t)(int64_t)fh.L.v[item]), &w, 8);
}

static void setup(void)
{
	fh_init(&fh);
	frame_memo_init(&memo);
	intern_init(&strings);
	intern_str(&strings, ""); /* id 0, as stackwalk_init makes it: a frame named 0 is unnamed */
	uint8_t zero[512] = {0};
	stack = fh_raw(&fh, zero, sizeof(zero));
	fp = stack + 128;
	caller_fp = stack + 320;
	memcpy(fh_ptr(&fh, fp), &caller_fp, 8);
	slot(fp, L_FP_CONTEXT, fh_obj(&fh, FT_JSFUNCTION, 32)); /* any object: not a marker */
	slot(fp, L_FP_FUNCTION, fh_obj(&fh, FT_JSFUNCTION, 64));
	slot(fp, L_FP_BYTECODE_ARRAY, fh_obj(&fh, FT_SFI, 64));
	slot(fp, L_FP_BYTECODE_OFFSET, fh_smi(42));
	slot(fp, L_FP_ARGS, fh_obj(&fh, FT_JSFUNCTION, 32));
	slot(caller_fp, L_FP_CONTEXT, fh_smi(3)); /* the caller: a typed frame */
	rf = (struct raw_frame){.pc = 0x7000123, .sp = stack, .fp = fp, .how = FRAME_CFI, .fp_ok = true};
}

static void teardown(void)
{
	intern_free(&strings);
	frame_memo_free(&memo);
	fh_free(&fh);
}

TestSuite(frame_memo, .init = setup, .fini = teardown);

static struct frame js(const char *name, int line)
{
	return fb_js(&strings, name, "/app/x.js", line, 1);
}

/* One walk that decodes rf into frames[0..n) and commits (validated or not). */
static void decode_once(const struct frame *frames, int n, bool validated)
{
	struct memo_key k;
	struct memo_ref ref;
	frame_memo_begin_walk(&memo);
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &k));
	cr_assert_not(frame_memo_find(&memo, &k, &ref));
	frame_memo_stage(&memo, &k, RECEIVER_MAP, NULL, frames, n);
	frame_memo_commit(&memo, validated);
}

/* The next walk: rf found (its frames in *out)? */
static bool found_again(const struct frame **out, int *n)
{
	struct memo_key k;
	struct memo_ref ref;
	frame_memo_begin_walk(&memo);
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &k));
	if (!frame_memo_find(&memo, &k, &ref))
		return false;
	uint64_t receiver;
	*out = frame_memo_frames(&memo, ref, n, &receiver);
	cr_assert_eq(receiver, RECEIVER_MAP, "an entry keeps the receiver id it was decoded with");
	bool js = false;
	for (int i = 0; i < *n; i++)
		js |= (*out)[i].kind == FK_JS || (*out)[i].kind == FK_JS_INLINED;
	cr_assert_eq(frame_memo_has_js(&memo, ref), js, "an entry knows whether it has JS frames");
	return true;
}

/* The next walk finds rf, whatever its frames. */
static bool found(void)
{
	const struct frame *got;
	int n;
	return found_again(&got, &n);
}

Test(frame_memo, an_unchanged_activation_is_not_decoded_again)
{
	struct frame f[2] = {js("inlined", 7), js("Widget.measure", 12)};
	f[0].kind = FK_JS_INLINED;
	decode_once(f, 2, true);
	const struct frame *got;
	int n;
	cr_assert(found_again(&got, &n));
	cr_assert_eq(n, 2);
	cr_assert_eq(got[0].kind, FK_JS_INLINED);
	cr_assert_eq(got[1].name, f[1].name);
	cr_assert_eq(got[1].line, 12);
}

Test(frame_memo, the_top_frame_has_no_key)
{
	struct memo_key k;
	rf.how = FRAME_TOP; /* its pc is exact: the position moves under it */
	cr_assert_not(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &k));
	rf.how = FRAME_CFI;
	rf.fp_ok = false;
	cr_assert_not(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &k));
}

Test(frame_memo, a_sample_that_did_not_validate_is_not_kept)
{
	struct frame f = js("measure", 12);
	decode_once(&f, 1, false);
	cr_assert_not(found());
	cr_assert_eq(memo.dropped, 1);
}

Test(frame_memo, any_identifying_slot_that_changes_is_a_miss)
{
	struct frame f = js("measure", 12);
	decode_once(&f, 1, true);
	cr_assert(found());
	/* the interpreter moved on to another bytecode */
	slot(fp, L_FP_BYTECODE_OFFSET, fh_smi(50));
	cr_assert_not(found());
	decode_once(&f, 1, true);
	/* another return address: another call site in the same function */
	rf.pc += 16;
	cr_assert_not(found());
	decode_once(&f, 1, true);
	/* the caller became a construct frame: the call is `new` now */
	slot(caller_fp, L_FP_CONTEXT, fh_smi(7));
	cr_assert_not(found());
}

Test(frame_memo, only_complete_frames_are_kept)
{
	struct frame at_def = js("measure", 12);
	at_def.at_def = true; /* no position yet: the next sample may have one */
	decode_once(&at_def, 1, true);
	cr_assert_not(found());
	struct frame no_def = js("measure", 12);
	no_def.def_line = 0; /* its definition not known yet */
	decode_once(&no_def, 1, true);
	cr_assert_not(found());
	struct frame builtin = js("measure", 12);
	builtin.kind = FK_BUILTIN;
	builtin.name = 0; /* not named */
	decode_once(&builtin, 1, true);
	cr_assert_not(found());
	struct frame many[MEMO_MAX_FRAMES + 1];
	for (int i = 0; i <= MEMO_MAX_FRAMES; i++)
		many[i] = js("measure", 12);
	decode_once(many, MEMO_MAX_FRAMES + 1, true);
	cr_assert_not(found());
	cr_assert_eq(memo.kept, 0);
}

/* A builtin's frame (forEach, Reflect.apply, …) named from its pc is as final as a JS frame's. */
Test(frame_memo, named_builtin_frames_are_kept)
{
	struct frame builtin = js("ArrayForEach", 0);
	builtin.kind = FK_BUILTIN;
	decode_once(&builtin, 1, true);
	const struct frame *f;
	int n;
	cr_assert(found_again(&f, &n));
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].kind, FK_BUILTIN);
	cr_assert_eq(f[0].name, builtin.name);
}

Test(frame_memo, entries_expire_after_their_lifetime)
{
	struct frame f = js("measure", 12);
	decode_once(&f, 1, true);
	for (int i = 0; i < MEMO_LIFETIME_WALKS - 2; i++)
		frame_memo_begin_walk(&memo);
	cr_assert(found(), "still within its lifetime");
	frame_memo_begin_walk(&memo);
	cr_assert_not(found(), "decoded again once its lifetime is over");
	cr_assert_eq(memo.expired, 1);
}

/* Other activations (other return addresses at another frame), all in one walk, to fill
 * generations without ageing the entry under test. */
static void fill(int count, uint64_t base_fp)
{
	struct frame f = js("other", 3);
	frame_memo_begin_walk(&memo);
	for (int i = 0; i < count; i++) {
		struct raw_frame o = rf;
		o.fp = base_fp;
		o.pc = 0x9000000 + (uint64_t)i;
		struct memo_key k;
		cr_assert(frame_memo_key(&fh.L, &fh.base, &o, false, false, &k));
		frame_memo_stage(&memo, &k, RECEIVER_MAP, NULL, &f, 1);
	}
	frame_memo_commit(&memo, true);
}

Test(frame_memo, entries_in_use_survive_generation_turns)
{
	struct frame f = js("measure", 12);
	decode_once(&f, 1, true);
	/* a full generation of others, then the entry is used (it moves to the new generation),
	 * then another full generation: it is still there */
	fill(MEMO_GENERATION, caller_fp);
	cr_assert(found());
	fill(MEMO_GENERATION - 1, caller_fp);
	cr_assert(found());
	cr_assert_geq(memo.turns, 1);
	/* unused for two turns (two walks: one walk turns them at most once, since a second turn
	 * would clear entries it found), it is gone */
	fill(MEMO_GENERATION, caller_fp);
	fill(MEMO_GENERATION, caller_fp);
	cr_assert_not(found());
}

Test(frame_memo, a_moved_receiver_is_the_same_activation_and_its_map_is_what_a_hit_must_match)
{
	struct frame f = js("Widget.measure", 12);
	decode_once(&f, 1, true);
	/* a scavenge moved the receiver: the slot holds its new address, the activation is the same
	 * (the caller compares the receiver's map with the entry's) */
	uint64_t moved = fh_obj(&fh, FT_JSFUNCTION, 32);
	slot(fp, L_FP_ARGS, moved);
	cr_assert(found());
	uint64_t receiver, id;
	cr_assert(frame_memo_receiver(&fh.L, &fh.base, &rf, &receiver));
	cr_assert_eq(receiver, moved);
	cr_assert(frame_memo_receiver_id(&fh.L, &fh.base, receiver, &id));
	uint64_t map;
	memcpy(&map, fh_ptr(&fh, moved - 1), 8);
	cr_assert_eq(id, map, "a heap object receiver is known by its map");
	cr_assert(frame_memo_receiver_id(&fh.L, &fh.base, fh_smi(7), &id));
	cr_assert_eq(id, fh_smi(7), "a Smi receiver by itself");
}

Test(frame_memo, an_interpreted_frame_is_known_by_its_bytecode_not_its_closure)
{
	struct memo_key a, b;
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, true, false, &a));
	slot(fp, L_FP_FUNCTION, fh_obj(&fh, FT_JSFUNCTION, 64)); /* another closure, same bytecode */
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, true, false, &b));
	cr_assert(!memcmp(&a, &b, sizeof(a)));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &b));
	cr_assert(memcmp(&a, &b, sizeof(a)), "code of unknown tier: the closure is in the key");
}

/* A frame of Maglev or TurboFan code: its Code (found by its return address) names its function;
 * the closure and the spill slots where an interpreted frame has its bytecode array and offset
 * (rewritten whenever a scavenge moves what they hold) are not part of it. */
Test(frame_memo, an_optimized_frame_is_known_by_its_code_not_its_spill_slots)
{
	struct memo_key a, b, c;
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, true, &a));
	slot(fp, L_FP_FUNCTION, fh_obj(&fh, FT_JSFUNCTION, 64));
	slot(fp, L_FP_BYTECODE_ARRAY, fh_obj(&fh, FT_SFI, 64));
	slot(fp, L_FP_BYTECODE_OFFSET, fh_smi(43));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, true, &b));
	cr_assert(!memcmp(&a, &b, sizeof(a)));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &c));
	cr_assert(memcmp(&a, &c, sizeof(a)), "another tier, another key");
	struct raw_frame other = rf;
	other.pc += 4; /* another call site in the same code */
	cr_assert(frame_memo_key(&fh.L, &fh.base, &other, false, true, &c));
	cr_assert(memcmp(&a, &c, sizeof(a)));
	memcpy(fh_ptr(&fh, fp), &(uint64_t){caller_fp + 16}, 8); /* another caller */
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, true, &c));
	cr_assert(memcmp(&a, &c, sizeof(a)));
}

/* --- anchored keys: what an activation runs, wherever it is on the stack --------------------- */

enum { T_BYTECODE_ARRAY = 191 }; /* a type the Node 20 fake metadata does not carry */

/* A BytecodeArray of `len` bytes whose position table is `table`. */
static uint64_t bytecode_array(int64_t len, uint64_t table)
{
	fh.L.v[L_T_BYTECODE_ARRAY] = T_BYTECODE_ARRAY;
	fh.L.src[L_T_BYTECODE_ARRAY] = SRC_OVERRIDE;
	uint64_t bca = fh_obj(&fh, T_BYTECODE_ARRAY, 64);
	fh_set(&fh, bca, fh.L.v[L_BCA_LENGTH], fh_smi(len));
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], table);
	return bca;
}

/* The frame of rf again, deeper in the stack: another frame pointer and caller, the same slots. */
static struct raw_frame elsewhere(void)
{
	uint64_t fp2 = stack + 32, caller2 = stack + 224;
	memcpy(fh_ptr(&fh, fp2), &caller2, 8);
	const enum v8_item items[] = {L_FP_CONTEXT, L_FP_FUNCTION, L_FP_BYTECODE_ARRAY, L_FP_BYTECODE_OFFSET, L_FP_ARGS};
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		uint64_t v;
		memcpy(&v, fh_ptr(&fh, fp + (uint64_t)(int64_t)fh.L.v[items[i]]), 8);
		slot(fp2, items[i], v);
	}
	slot(fp2, L_FP_FUNCTION, fh_obj(&fh, FT_JSFUNCTION, 64)); /* another closure of it */
	slot(caller2, L_FP_CONTEXT, fh_smi(3));
	struct raw_frame o = rf;
	o.fp = fp2;
	return o;
}

/* rf's located key (*k) and anchored key (*a, made `how`), and the same code's activation
 * elsewhere (*o): two located keys, one anchored key. */
static void anchored_twice(bool interpreted, bool optimized, enum memo_anchor how, struct memo_key *k,
			   struct memo_key *a, struct raw_frame *o)
{
	struct memo_key k2, a2;
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, interpreted, optimized, k));
	cr_assert(frame_memo_anchored_key(k, how, a));
	*o = elsewhere();
	cr_assert(frame_memo_key(&fh.L, &fh.base, o, interpreted, optimized, &k2));
	cr_assert(memcmp(k, &k2, sizeof(k2)), "keyed where it is: two activations");
	cr_assert(frame_memo_anchored_key(&k2, how, &a2));
	cr_assert(!memcmp(a, &a2, sizeof(a2)), "anchored: one");
	cr_assert(memcmp(a, k, sizeof(*a)), "an anchored key is never a located one");
}

Test(frame_memo, an_anchored_key_is_the_same_for_every_activation_of_the_same_bytecode)
{
	struct memo_key k, a, k2, a2;
	struct raw_frame o;
	anchored_twice(true, false, MEMO_BY_BYTECODE, &k, &a, &o);
	/* interpreted: the offset is where it runs; baseline: the pc says it, the slot does not */
	slot(o.fp, L_FP_BYTECODE_OFFSET, fh_smi(43));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &o, true, false, &k2));
	cr_assert(frame_memo_anchored_key(&k2, MEMO_BY_BYTECODE, &a2));
	cr_assert(memcmp(&a, &a2, sizeof(a)));
	cr_assert(frame_memo_anchored_key(&k, MEMO_BY_BASELINE, &a));
	cr_assert(frame_memo_anchored_key(&k2, MEMO_BY_BASELINE, &a2));
	cr_assert(!memcmp(&a, &a2, sizeof(a)));
	/* another bytecode array, another key; none without one, nor for optimized code */
	slot(o.fp, L_FP_BYTECODE_ARRAY, fh_obj(&fh, FT_SFI, 64));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &o, true, false, &k2));
	cr_assert(frame_memo_anchored_key(&k2, MEMO_BY_BASELINE, &a2));
	cr_assert(memcmp(&a, &a2, sizeof(a)));
	slot(o.fp, L_FP_BYTECODE_ARRAY, fh_smi(5));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &o, true, false, &k2));
	cr_assert_not(frame_memo_anchored_key(&k2, MEMO_BY_BASELINE, &a2));
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, true, &k2));
	cr_assert_not(frame_memo_anchored_key(&k2, MEMO_BY_BYTECODE, &a2));
	cr_assert_not(frame_memo_anchored_key(&k2, MEMO_AT_FP, &a2));
}

/* Optimized code: the pc (with the caller's marker) is the key, wherever the frame is; only a
 * key made for optimized code has one. */
Test(frame_memo, an_optimized_frame_is_anchored_by_its_code)
{
	struct memo_key k, a, k2, a2;
	struct raw_frame o;
	anchored_twice(false, true, MEMO_BY_CODE, &k, &a, &o);
	cr_assert_eq(a.anchored, MEMO_BY_CODE);
	o.pc += 4; /* another call site */
	cr_assert(frame_memo_key(&fh.L, &fh.base, &o, false, true, &k2));
	cr_assert(frame_memo_anchored_key(&k2, MEMO_BY_CODE, &a2));
	cr_assert(memcmp(&a, &a2, sizeof(a)));
	cr_assert_not(frame_memo_anchored_key(&k, MEMO_BY_BASELINE, &a2), "optimized: no bytecode key");
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, false, false, &k2));
	cr_assert_not(frame_memo_anchored_key(&k2, MEMO_BY_CODE, &a2), "not optimized: no code key");
}

Test(frame_memo, an_anchored_entry_keeps_the_identity_of_its_bytecode_array)
{
	uint64_t table = fh_obj(&fh, FT_FIXED_ARRAY, 32);
	uint64_t bca = bytecode_array(100, table), id[2], again[2];
	cr_assert(frame_memo_anchor_id(&fh.h, bca, id));
	slot(fp, L_FP_BYTECODE_ARRAY, bca);
	struct memo_key k, a;
	cr_assert(frame_memo_key(&fh.L, &fh.base, &rf, true, false, &k));
	cr_assert(frame_memo_anchored_key(&k, MEMO_BY_BYTECODE, &a));
	struct frame f = js("run", 7);
	frame_memo_begin_walk(&memo);
	frame_memo_stage(&memo, &a, RECEIVER_MAP, id, &f, 1);
	frame_memo_commit(&memo, true);
	/* found from another activation, with the identity it was made with */
	struct raw_frame o = elsewhere();
	struct memo_key k2, a2;
	struct memo_ref ref;
	cr_assert(frame_memo_key(&fh.L, &fh.base, &o, true, false, &k2));
	cr_assert(frame_memo_anchored_key(&k2, MEMO_BY_BYTECODE, &a2));
	frame_memo_begin_walk(&memo);
	cr_assert_not(frame_memo_find(&memo, &k2, &ref));
	cr_assert(frame_memo_find(&memo, &a2, &ref));
	cr_assert_eq(memo.anchored_hits, 1);
	cr_assert(!memcmp(frame_memo_anchor(&memo, ref), id, sizeof(id)));
	/* the array's identity: its length and position table; a changed one is another array */
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], fh_obj(&fh, FT_FIXED_ARRAY, 32));
	cr_assert(frame_memo_anchor_id(&fh.h, bca, again));
	cr_assert(memcmp(id, again, sizeof(id)));
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], table);
	fh_set(&fh, bca, fh.L.v[L_BCA_LENGTH], fh_smi(101));
	cr_assert(frame_memo_anchor_id(&fh.h, bca, again));
	cr_assert(memcmp(id, again, sizeof(id)));
	/* none without a position table (lazy source positions), nor of another type */
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], fh_smi(0));
	cr_assert_not(frame_memo_anchor_id(&fh.h, bca, again));
	cr_assert_not(frame_memo_anchor_id(&fh.h, fh_obj(&fh, FT_SFI, 64), again));
}
