/* test_frames.c — frame classification (typed marker / JS frame / neither), function naming from
 * SharedFunctionInfo and ScopeInfo, and the frame-pointer walk over a synthetic stack, all through
 * the real decoder and unwinder over a synthetic heap. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../mem/memsnap.h"
#include "../../v8/frames.h"
#include "../../v8/function.h"
#include "../../walker/stackwalk.h"
#include "../../walker/unwind.h"
#include "fake_heap.h"

static struct fake_heap fh;
static struct intern names;
static struct script_cache scripts;
static struct function_cache funcs;

static void setup(void)
{
	fh_init(&fh);
	intern_init(&names);
	script_cache_init(&scripts, &names);
	function_cache_init(&funcs, &names, &scripts);
}

static void teardown(void)
{
	function_cache_free(&funcs);
	script_cache_free(&scripts);
	intern_free(&names);
	fh_free(&fh);
}

TestSuite(frames, .init = setup, .fini = teardown);

/* A Script whose source has a function `function leaf(a) {` on line 3. */
static uint64_t make_script(void)
{
	uint64_t s = fh_obj(&fh, FT_SCRIPT, 128);
	fh_set(&fh, s, 8, fh_str1(&fh, "'use strict';\n\nfunction leaf(a) {\n  return a;\n}\n"));
	fh_set(&fh, s, 16, fh_str1(&fh, "/srv/app.js"));
	fh_set(&fh, s, 56, fh_smi(0));
	return s;
}

/* ScopeInfo (V8 < 12.8 layout): flags, nparams, nlocals, [funcvar name, slot], [inferred], start, end */
static uint64_t make_scope_info(uint64_t fname, uint64_t inferred, int start, int end)
{
	uint64_t si = fh_obj(&fh, FT_SCOPE_INFO, 8 + 8 * 10);
	uint32_t flags = 2 /* function scope */;
	int k = 3;
	if (fname)
		flags |= 1u << 12;
	if (inferred)
		flags |= 1u << 14;
	fh_set(&fh, si, 8, fh_smi(flags));
	fh_set(&fh, si, 16, fh_smi(1));
	fh_set(&fh, si, 24, fh_smi(0));
	if (fname) {
		fh_set(&fh, si, 8 + 8 * k++, fname == 1 ? 0 : fname); /* 1 = Smi zero: anonymous */
		fh_set(&fh, si, 8 + 8 * k++, fh_smi(-1));
	}
	if (inferred)
		fh_set(&fh, si, 8 + 8 * k++, inferred);
	fh_set(&fh, si, 8 + 8 * k++, fh_smi(start));
	fh_set(&fh, si, 8 + 8 * k++, fh_smi(end));
	return si;
}

static uint64_t make_function(uint64_t name_or_scope_info, uint64_t script, int16_t token_offset)
{
	uint64_t sfi = fh_obj(&fh, FT_SFI, 64);
	fh_set(&fh, sfi, 16, name_or_scope_info);
	fh_set(&fh, sfi, 32, script);
	memcpy(fh_ptr(&fh, sfi - 1 + 44), &token_offset, 2);
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, 24, sfi);
	return fn;
}

static const char *fname(uint64_t fn, int32_t *line)
{
	const struct v8_function *f = function_of_jsfunction(&funcs, &fh.h, fn);
	if (!f)
		return NULL;
	if (line)
		*line = f->def_line;
	return intern_get(&names, f->name_id);
}

Test(frames, function_named_by_string_and_scope_info)
{
	uint64_t script = make_script();
	int32_t line = -1;
	/* "function leaf(a)": the `function` token is at 15; the parameter list starts at 28 */
	uint64_t si = make_scope_info(fh_str1(&fh, "leaf"), 0, 28, 50);
	cr_assert_str_eq(fname(make_function(si, script, 13), &line), "leaf");
	cr_assert_eq(line, 3);
	const struct v8_function *f = function_of_jsfunction(&funcs, &fh.h, make_function(si, script, 13));
	cr_assert_str_eq(intern_get(&names, f->file_id), "/srv/app.js");
	cr_assert_eq(f->def_col, 1);
	/* a String name (not yet compiled) */
	cr_assert_str_eq(fname(make_function(fh_str1(&fh, "lazy"), script, 0), NULL), "lazy");
}

Test(frames, anonymous_and_inferred_names)
{
	uint64_t script = make_script();
	uint64_t anon_inferred = make_scope_info(1, fh_str1(&fh, "Module._compile"), 28, 50);
	cr_assert_str_eq(fname(make_function(anon_inferred, script, 0), NULL), "Module._compile");
	uint64_t anon = make_scope_info(1, 0, 28, 50);
	cr_assert_str_eq(fname(make_function(anon, script, 0), NULL), "(anonymous)");
	/* Smi 0 in name_or_scope_info: kNoSharedNameSentinel */
	cr_assert_str_eq(fname(make_function(0, script, 0), NULL), "(anonymous)");
}

/* A function decoded while its script's source could not be read (launch mode: a script just
 * loaded) gets its definition line once the script has a line table, whoever's lookup built it. */
Test(frames, definition_line_found_once_the_script_has_lines)
{
	uint64_t script = make_script(), src;
	memcpy(&src, fh_ptr(&fh, script - 1 + 8), 8);
	uint64_t map;
	memcpy(&map, fh_ptr(&fh, src - 1), 8);
	fh_set(&fh, src, 0, 0); /* unreadable: no map */
	uint64_t fn = make_function(make_scope_info(fh_str1(&fh, "leaf"), 0, 28, 50), script, 13);
	int32_t line = -1, col;
	cr_assert_str_eq(fname(fn, &line), "leaf");
	cr_assert_eq(line, 0, "no line table yet");
	fh_set(&fh, src, 0, map);
	struct v8_script *s = script_cached(&scripts, script);
	cr_assert_not_null(s);
	while (!script_position(&scripts, &fh.h, s, 40, &line, &col)) /* another frame's lookup */
		;
	cr_assert(s->lines_ok);
	cr_assert_str_eq(fname(fn, &line), "leaf");
	cr_assert_eq(line, 3);
}

Test(frames, builtin_function_without_script)
{
	uint64_t undefined_oddball = fh_obj(&fh, FT_ODDBALL, 48);
	const struct v8_function *f =
	    function_of_jsfunction(&funcs, &fh.h, make_function(fh_str1(&fh, "map"), undefined_oddball, 0));
	cr_assert_not_null(f);
	cr_assert_not(f->has_script);
	cr_assert_str_eq(intern_get(&names, f->file_id), "");
}

Test(frames, cache_hit_is_revalidated)
{
	uint64_t script = make_script();
	uint64_t fn = make_function(fh_str1(&fh, "first"), script, 0);
	cr_assert_str_eq(fname(fn, NULL), "first");
	/* the same SFI address now holds another function (GC moved things): the cache must notice */
	uint64_t sfi;
	memcpy(&sfi, fh_ptr(&fh, fn - 1 + 24), 8);
	fh_set(&fh, sfi, 16, fh_str1(&fh, "second"));
	cr_assert_str_eq(fname(fn, NULL), "second");
}

Test(frames, bad_objects_are_rejected)
{
	cr_assert_null(fname(fh_obj(&fh, FT_SCRIPT, 64), NULL), "not a JSFunction's SFI");
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, 24, fh_obj(&fh, FT_MAP, 64));
	cr_assert_null(fname(fn, NULL), "shared is not an SFI");
	fh_set(&fh, fn, 24, 0x4242424201ULL);
	cr_assert_null(fname(fn, NULL), "shared is unreadable");
}

/* A synthetic stack region inside the fake heap's memory. */
struct fake_stack {
	uint64_t lo, hi;
};

static struct fake_stack make_stack(size_t size)
{
	uint64_t base = fh_alloc(&fh, size) - 1;
	return (struct fake_stack){base, base + size};
}

static void put(uint64_t addr, uint64_t v)
{
	memcpy(fh_ptr(&fh, addr), &v, 8);
}

/* Lay out a V8 frame at fp: [fp] = caller fp, [fp+8] = return address, [fp-8] context or marker,
 * [fp-16] function. */
static void frame_at(uint64_t fp, uint64_t caller_fp, uint64_t ret, uint64_t ctx_or_marker,
		     uint64_t fn)
{
	put(fp, caller_fp);
	put(fp + 8, ret);
	put(fp - 8, ctx_or_marker);
	put(fp - 16, fn);
	put(fp - 24, 2);
	put(fp - 32, 0);
	put(fp - 40, 0);
}

Test(frames, frame_classification)
{
	struct fake_stack st = make_stack(4096);
	uint64_t ctx = fh_obj(&fh, FT_FIXED_ARRAY, 64);
	uint64_t fn = make_function(fh_str1(&fh, "f"), make_script(), 0);
	struct v8_frame vf;
	frame_at(st.lo + 256, 0, 0, ctx, fn);
	cr_assert(v8_read_frame(&fh.h, st.lo + 256, &vf));
	cr_assert_eq(vf.kind, VF_JS);
	cr_assert_eq(vf.function, fn);
	frame_at(st.lo + 512, 0, 0, (uint64_t)1 << 1 /* EntryFrame marker */, 0);
	cr_assert(v8_read_frame(&fh.h, st.lo + 512, &vf));
	cr_assert_eq(vf.kind, VF_TYPED);
	cr_assert_eq(vf.type, 1);
	cr_assert(v8_frame_is_entry(&fh.L, &vf));
	frame_at(st.lo + 768, 0, 0, (uint64_t)99 << 1 /* beyond the largest frame type */, 0);
	cr_assert(v8_read_frame(&fh.h, st.lo + 768, &vf));
	cr_assert_eq(vf.kind, VF_BAD);
	frame_at(st.lo + 1024, 0, 0, ctx, fh_obj(&fh, FT_SCRIPT, 64) /* not a function */);
	cr_assert(v8_read_frame(&fh.h, st.lo + 1024, &vf));
	cr_assert_eq(vf.kind, VF_BAD);
	cr_assert_not(v8_read_frame(&fh.h, 0x99990000, &vf), "unreadable frame");
	/* the type alone, from the marker slot: a JS frame, a bad marker or no frame have none */
	int32_t type;
	cr_assert(v8_read_frame_type(&fh.h, st.lo + 512, &type));
	cr_assert_eq(type, 1);
	cr_assert_not(v8_read_frame_type(&fh.h, st.lo + 256, &type));
	cr_assert_not(v8_read_frame_type(&fh.h, st.lo + 768, &type));
	cr_assert_not(v8_read_frame_type(&fh.h, 0x99990000, &type));
	cr_assert_not(v8_frame_type_is_construct(&fh.L, 1));
}

static void empty_addrspace(struct addrspace *as)
{
	addrspace_init(as, 0, "");
	addrspace_index(as);
}

Test(frames, frame_pointer_walk_and_its_sanity_checks)
{
	struct fake_stack st = make_stack(8192);
	struct addrspace as;
	empty_addrspace(&as);
	struct unwinder u;
	unwinder_init(&u, &as);
	struct stack_bounds b = {st.lo, st.hi};
	uint64_t f1 = st.lo + 1024, f2 = st.lo + 2048, f3 = st.lo + 4096;
	frame_at(f1, f2, 0x7000001, 0, 0);
	frame_at(f2, f3, 0x7000002, 0, 0);
	frame_at(f3, 0, 0x7000003, 0, 0);
	struct regset r;
	memset(&r, 0, sizeof(r));
	reg_set(&r, REG_PC, 0x7000000);
	reg_set(&r, REG_SP, st.lo + 512);
	reg_set(&r, REG_FP, f1);
	struct raw_frame out[16];
	enum unwind_end end;
	int n = unwind_stack(&u, &r, &fh.base, &b, out, 16, &end);
	cr_assert_eq(n, 4);
	cr_assert_eq(end, UNWIND_FP_END);
	cr_assert_eq(out[0].pc, 0x7000000);
	cr_assert_eq(out[0].how, FRAME_TOP);
	cr_assert_eq(out[1].pc, 0x7000001);
	cr_assert_eq(out[1].fp, f2);
	cr_assert_eq(out[3].pc, 0x7000003);
	cr_assert_eq(out[3].how, FRAME_FP);
	/* a caller frame below its callee is a broken chain, not a loop */
	frame_at(f2, f1, 0x7000002, 0, 0);
	n = unwind_stack(&u, &r, &fh.base, &b, out, 16, &end);
	cr_assert_eq(end, UNWIND_BROKEN);
	cr_assert_lt(n, 4);
	/* a frame pointer outside the thread's stack */
	reg_set(&r, REG_FP, st.hi + 64);
	n = unwind_stack(&u, &r, &fh.base, &b, out, 16, &end);
	cr_assert_eq(end, UNWIND_BROKEN);
	/* the depth limit */
	frame_at(f2, f3, 0x7000002, 0, 0);
	reg_set(&r, REG_FP, f1);
	n = unwind_stack(&u, &r, &fh.base, &b, out, 2, &end);
	cr_assert_eq(n, 2);
	cr_assert_eq(end, UNWIND_MAX_DEPTH);
	unwinder_free(&u);
	addrspace_free(&as);
}

/* A walker over the fake heap, and a stack it walks: JS frames of `top` and `below` (each called on
 * undefined) above an entry frame, the registers of a thread stopped in the first. */
struct walk_fixture {
	struct fake_stack st;
	struct addrspace as;
	struct v8_runtime rt;
	struct stackwalk sw;
	struct regset r;
	struct stack_bounds b;
};

static void walk_fixture_init(struct walk_fixture *w, uint64_t top, uint64_t below)
{
	w->st = make_stack(8192);
	empty_addrspace(&w->as);
	memset(&w->rt, 0, sizeof(w->rt));
	w->rt.L = fh.L;
	stackwalk_init(&w->sw, &w->as, &w->rt, &names, false);
	uint64_t ctx = fh_obj(&fh, FT_FIXED_ARRAY, 64);
	uint64_t undefined = fh_oddball(&fh, 5);
	uint64_t f1 = w->st.lo + 1024, f2 = w->st.lo + 2048, f3 = w->st.lo + 3072;
	frame_at(f1, f2, 0x7000001, ctx, top);
	frame_at(f2, f3, 0x7000002, ctx, below);
	frame_at(f3, 0, 0x7000003, (uint64_t)1 << 1 /* EntryFrame marker */, 0);
	/* plain calls: the receiver slot holds undefined */
	put(f1 + 16, undefined);
	put(f2 + 16, undefined);
	memset(&w->r, 0, sizeof(w->r));
	reg_set(&w->r, REG_PC, 0x7000000);
	reg_set(&w->r, REG_SP, w->st.lo + 512);
	reg_set(&w->r, REG_FP, f1);
	w->b = (struct stack_bounds){w->st.lo, w->st.hi};
}

static void walk_fixture_free(struct walk_fixture *w)
{
	stackwalk_free(&w->sw);
	addrspace_free(&w->as);
}

Test(frames, stackwalk_names_js_frames_and_typed_frames)
{
	uint64_t script = make_script();
	uint64_t leaf = make_function(make_scope_info(fh_str1(&fh, "leaf"), 0, 28, 50), script, 13);
	uint64_t outer = make_function(fh_str1(&fh, "outer"), script, 0);
	struct walk_fixture w;
	walk_fixture_init(&w, leaf, outer);
	struct frame out[16];
	struct walk_stats ws;
	int n = stackwalk_capture(&w.sw, &w.r, &fh.base, &w.b, out, 16, &ws);
	stackwalk_name_natives(&w.sw, out, n);
	cr_assert_eq(ws.js_frames, 2);
	cr_assert_eq(out[0].kind, FK_JS);
	cr_assert_str_eq(intern_get(&names, out[0].name), "leaf");
	cr_assert_eq(out[0].line, 3);
	cr_assert_str_eq(intern_get(&names, out[0].file), "/srv/app.js");
	cr_assert_eq(out[1].kind, FK_JS);
	cr_assert_str_eq(intern_get(&names, out[1].name), "outer");
	cr_assert_eq(out[2].kind, FK_V8_TYPED);
	cr_assert_str_eq(intern_get(&names, out[2].name), "<EntryFrame>");
	cr_assert_eq(out[n - 1].kind, FK_TRUNCATED, "the chain ended without reaching _start");
	walk_fixture_free(&w);
}

/* What a validation re-reads for a frame whose decode read beyond the copy: the objects the
 * batches copied for it, found again through the copy as the batches found them. */
Test(frames, a_frames_objects_are_found_again_for_its_validation)
{
	struct fake_stack st = make_stack(4096);
	struct v8_runtime rt;
	memset(&rt, 0, sizeof(rt));
	rt.L = fh.L;
	uint64_t ctx = fh_obj(&fh, FT_FIXED_ARRAY, 64);
	uint64_t fn = make_function(fh_str1(&fh, "f"), make_script(), 0);
	uint64_t sfi;
	memcpy(&sfi, fh_ptr(&fh, fn - 1 + fh.L.v[L_JSFUNC_SHARED]), 8);
	uint64_t fp = st.lo + 512, bca = fh_obj(&fh, FT_FIXED_ARRAY, 64);
	frame_at(fp, 0, 0x7000001, ctx, fn);
	if (v8_has(&fh.L, L_FP_BYTECODE_ARRAY))
		put(fp + (uint64_t)(int64_t)fh.L.v[L_FP_BYTECODE_ARRAY], bca);
	struct raw_frame raw[2] = {{.pc = 0x7000000, .fp = fp, .how = FRAME_TOP, .fp_ok = true},
				   {.pc = 0x7000001, .fp = fp, .fp_ok = false}};
	struct prefetch_hints hints = {.raw = raw, .nraw = 2};
	uint64_t out[8];
	int n = prefetch_frame_objects(&rt, &hints, &fh.base, 0, out, 8);
	cr_assert_geq(n, 1);
	cr_assert_eq(out[0], sfi - 1, "its function's SharedFunctionInfo, untagged");
	bool has_bca = false;
	for (int i = 0; i < n; i++)
		has_bca |= out[i] == bca - 1;
	cr_assert_eq(has_bca, v8_has(&fh.L, L_FP_BYTECODE_ARRAY), "its bytecode array slot");
	cr_assert_eq(prefetch_frame_objects(&rt, &hints, &fh.base, 1, out, 8), 0, "no frame pointer");
	cr_assert_eq(prefetch_frame_objects(&rt, &hints, &fh.base, 2, out, 8), 0, "no such frame");
	cr_assert_eq(prefetch_frame_objects(&rt, &hints, &fh.base, 0, out, 0), 0, "no room");
	cr_assert_eq(prefetch_frame_objects(NULL, &hints, &fh.base, 0, out, 8), 0, "no V8");
}

/* Which frames' decode read beyond the batched copy is noted per frame (a validation re-reads
 * their objects only): also a frame served by what another frame's late read copied. */
Test(frames, frames_that_read_beyond_the_batches_are_noted)
{
	/* a recursion: two frames of one function, whose SharedFunctionInfo lies pages away from it
	 * (the batch copies the function; the first frame's reads copy what the second one needs) */
	uint64_t sfi = fh_obj(&fh, FT_SFI, 64);
	fh_set(&fh, sfi, 16, fh_str1(&fh, "again"));
	fh_set(&fh, sfi, 32, make_script());
	fh_alloc(&fh, 16384);
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, 24, sfi);
	struct walk_fixture w;
	walk_fixture_init(&w, fn, fn);
	struct memsnap snap;
	memsnap_init(&snap, &fh.base, 1 << 20);
	memsnap_put(&snap, w.st.lo, fh_ptr(&fh, w.st.lo), (size_t)(w.st.hi - w.st.lo));
	struct walk_stats ws;
	stackwalk_unwind(&w.sw, &w.r, &snap.base, &w.b, &ws);
	memsnap_mark_late(&snap);
	w.sw.live_reads = &snap.late_reads;
	struct frame out[16];
	unsigned long misses = snap.misses;
	stackwalk_decode(&w.sw, &w.r, &snap.base, out, 16, &ws);
	cr_assert_eq(ws.js_frames, 2);
	cr_assert_str_eq(intern_get(&names, out[1].name), "again");
	cr_assert_gt(snap.misses, misses);
	cr_assert(w.sw.read_live[0], "the first frame read its SharedFunctionInfo");
	cr_assert(w.sw.read_live[1], "the second frame read it again from that copy, made after the batch");
	cr_assert_not(w.sw.read_live[2], "the entry frame's marker is on the copied stack");
	cr_assert_not(w.sw.read_live_outside);
	memsnap_free(&snap);
	walk_fixture_free(&w);
}
