/* test_positions.c — exact positions: the source-position-table decoder (both code-delta
 * encodings, statement and expression entries, externals, malformed tables), the baseline PC →
 * bytecode offset mapping (prefixed bytecodes, return addresses at a bytecode's end), inlining
 * expansion from deoptimization data (plain and wrapped SharedFunctionInfos, weak literals,
 * malformed records), the Code lookup by PC, optimized frames (and the functions inlined at a
 * pc, for the batch before a decode) and interpreted frames end to end, over the synthetic heap. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../v8/baseline.h"
#include "../../v8/bytecode.h"
#include "../../v8/callsite.h"
#include "../../v8/code.h"
#include "../../v8/inlining.h"
#include "../../v8/positions.h"
#include "../../v8/safepoints.h"
#include "../../v8/spt.h"
#include "fake_heap.h"

static struct fake_heap fh;

/* instance types the Node 20 fake metadata does not carry */
enum { T_BYTE_ARRAY = 190, T_BCA = 191, T_CODE = 245, T_IS = 252, T_SFI_WRAPPER = 195,
       T_WEAK_FIXED_ARRAY = 240 };

static void setup(void)
{
	fh_init(&fh);
	fh_set_item(&fh.L, L_T_BYTE_ARRAY, T_BYTE_ARRAY);
	fh_set_item(&fh.L, L_T_BYTECODE_ARRAY, T_BCA);
	fh_set_item(&fh.L, L_T_CODE, T_CODE);
	fh_set_item(&fh.L, L_T_INSTRUCTION_STREAM, T_IS);
	fh_set_item(&fh.L, L_T_WEAK_FIXED_ARRAY, T_WEAK_FIXED_ARRAY);
}

static void teardown(void) { fh_free(&fh); }

TestSuite(positions, .init = setup, .fini = teardown);

/* --- encoders: the inverse of what the decoder reads --------------------------------------- */

struct bytes {
	uint8_t b[512];
	size_t n;
};

static void put_vlq(struct bytes *o, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		o->b[o->n++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
}

static void put_zigzag(struct bytes *o, int64_t v)
{
	put_vlq(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static uint64_t srcpos(int32_t script_offset, int32_t inlining_id)
{
	return ((uint64_t)(script_offset + 1) << 1) | ((uint64_t)(inlining_id + 1) << 31);
}

/* entries (code offset, script offset, statement), encoded as deltas from (-1, 0) */
struct entry {
	int64_t code;
	uint64_t pos;
	bool stmt;
};

static void encode(struct bytes *o, enum spt_format f, const struct entry *e, int n)
{
	int64_t code = -1;
	uint64_t pos = 0;
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < n; i++) {
		int64_t d = e[i].code - code;
		if (f == SPT_PACKED)
			put_vlq(o, (uint64_t)d << 2 | 2 | (e[i].stmt ? 1 : 0));
		else
			put_zigzag(o, e[i].stmt ? d : -d - 1);
		put_zigzag(o, (int64_t)(e[i].pos - pos));
		code = e[i].code;
		pos = e[i].pos;
	}
}

/* --- VLQ and SourcePosition ------------------------------------------------------------------ */

Test(positions, vlq_round_trips)
{
	static const int64_t values[] = {0, 1, -1, 63, -64, 64, 1000, -1000, 1 << 20, -(1 << 28)};
	struct bytes o = {0};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		put_zigzag(&o, values[i]);
	size_t at = 0;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		int64_t v;
		cr_assert(vlq_read_signed(o.b, o.n, &at, &v));
		cr_assert_eq(v, values[i]);
	}
	int64_t v;
	cr_assert_not(vlq_read_signed(o.b, o.n, &at, &v), "nothing left");
	uint8_t truncated[] = {0x80, 0x80};
	at = 0;
	cr_assert_not(vlq_read_signed(truncated, 2, &at, &v), "continuation bit at the end");
	uint8_t endless[11];
	memset(endless, 0xff, sizeof(endless));
	uint64_t u;
	at = 0;
	cr_assert_not(vlq_read_unsigned(endless, sizeof(endless), &at, &u), "more than 64 bits");
}

Test(positions, source_position_bits)
{
	uint64_t p = srcpos(1234, -1);
	cr_assert_eq(srcpos_script_offset(p), 1234);
	cr_assert_eq(srcpos_inlining_id(p), -1);
	cr_assert_not(srcpos_is_external(p));
	p = srcpos(7, 3);
	cr_assert_eq(srcpos_script_offset(p), 7);
	cr_assert_eq(srcpos_inlining_id(p), 3);
	cr_assert_eq(srcpos_script_offset(0), -1, "0 is kNoSourcePosition");
	cr_assert(srcpos_is_external(1));
}

/* --- source-position tables ---------------------------------------------------------------- */

static void check_lookups(enum spt_format f)
{
	/* the function entry (-1), a statement at 0, an expression at 5, a statement at 9 */
	const struct entry e[] = {
	    {-1, srcpos(100, -1), false}, {0, srcpos(110, -1), true},
	    {5, srcpos(131, -1), false},  {9, srcpos(150, -1), true},
	};
	struct bytes o;
	encode(&o, f, e, 4);
	struct spt_iter it;
	spt_iter_init(&it, o.b, o.n, f);
	for (int i = 0; i < 4; i++) {
		cr_assert(spt_iter_next(&it));
		cr_assert_eq(it.cur.code_offset, e[i].code);
		cr_assert_eq(it.cur.position, e[i].pos);
		cr_assert_eq(it.cur.is_statement, e[i].stmt, "entry %d statement flag", i);
	}
	cr_assert_not(spt_iter_next(&it));
	uint64_t pos;
	/* the last entry at or before the offset */
	cr_assert(spt_lookup(o.b, o.n, f, 0, &pos));
	cr_assert_eq(srcpos_script_offset(pos), 110);
	cr_assert(spt_lookup(o.b, o.n, f, 4, &pos));
	cr_assert_eq(srcpos_script_offset(pos), 110);
	cr_assert(spt_lookup(o.b, o.n, f, 5, &pos));
	cr_assert_eq(srcpos_script_offset(pos), 131);
	cr_assert(spt_lookup(o.b, o.n, f, 1000, &pos));
	cr_assert_eq(srcpos_script_offset(pos), 150);
	cr_assert(spt_lookup(o.b, o.n, f, -1, &pos), "the function entry position");
	cr_assert_eq(srcpos_script_offset(pos), 100);
	cr_assert_not(spt_lookup(o.b, o.n, f, -2, &pos));
}

Test(positions, table_signed_encoding) { check_lookups(SPT_SIGNED); }
Test(positions, table_packed_encoding) { check_lookups(SPT_PACKED); }

Test(positions, table_measured_bytes_of_node_26)
{
	/* a BytecodeArray table of V8 14.6 (function mid of the e2e fixture), with what
	 * --print-bytecode said: 756 S@0, 761 S@3, 769 S@7, 776 E@10, 786 S@14 */
	static const uint8_t b[] = {0x02, 0x90, 0x17, 0x07, 0x44, 0x0f, 0x14,
				    0x13, 0x20, 0x0e, 0x1c, 0x13, 0x28};
	static const int64_t code[] = {-1, 0, 3, 7, 10, 14};
	static const int32_t src[] = {739, 756, 761, 769, 776, 786};
	static const bool stmt[] = {false, true, true, true, false, true};
	struct spt_iter it;
	spt_iter_init(&it, b, sizeof(b), SPT_PACKED);
	for (int i = 0; i < 6; i++) {
		cr_assert(spt_iter_next(&it));
		cr_assert_eq(it.cur.code_offset, code[i]);
		cr_assert_eq(srcpos_script_offset(it.cur.position), src[i]);
		cr_assert_eq(it.cur.is_statement, stmt[i]);
	}
	cr_assert_not(spt_iter_next(&it));
	cr_assert_not(it.bad);
}

Test(positions, table_skips_external_positions_and_rejects_garbage)
{
	const struct entry e[] = {{0, srcpos(10, -1), true}, {4, 1 | (5 << 1), false}};
	struct bytes o;
	encode(&o, SPT_SIGNED, e, 2);
	uint64_t pos;
	cr_assert(spt_lookup(o.b, o.n, SPT_SIGNED, 8, &pos));
	cr_assert_eq(srcpos_script_offset(pos), 10, "the external entry is not a JS position");
	/* a table cut inside an entry is malformed */
	cr_assert_not(spt_lookup(o.b, o.n - 1, SPT_SIGNED, 8, &pos));
	cr_assert_not(spt_lookup(o.b, 0, SPT_SIGNED, 8, &pos), "empty table");
}

/* --- baseline PC → bytecode offset ----------------------------------------------------------- */

Test(positions, baseline_pc_to_bytecode_offset)
{
	/* four opcodes; sizes per scale (single, wide, extra wide) */
	enum { N = 8 };
	uint8_t sizes[3 * N];
	for (int s = 0; s < 3; s++)
		for (int op = 0; op < N; op++)
			sizes[s * N + op] = (uint8_t)(op < 4 ? 1 : op == 5 ? 2 + s * 2 : 3);
	struct bytecode_sizes bs;
	cr_assert(bytecode_sizes_from(&bs, sizes, sizeof(sizes)));
	/* bytecodes: op5 (2 bytes) @0, Wide op5 (1 + 4 bytes) @2, op6 (3 bytes) @7 */
	const uint8_t bc[] = {5, 1, 0, 5, 1, 2, 3, 6, 0, 0};
	cr_assert_eq(bytecode_size_at(&bs, bc, sizeof(bc), 0), 2);
	cr_assert_eq(bytecode_size_at(&bs, bc, sizeof(bc), 2), 5, "Wide prefix + scaled operands");
	cr_assert_eq(bytecode_size_at(&bs, bc, sizeof(bc), 7), 3);
	/* machine code: prologue 10 bytes, then 6, 12, 4 bytes per bytecode */
	struct bytes t = {0};
	put_vlq(&t, 10);
	put_vlq(&t, 6);
	put_vlq(&t, 12);
	put_vlq(&t, 4);
	int64_t off;
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 3, &off));
	cr_assert_eq(off, -1, "the prologue");
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 10, &off));
	cr_assert_eq(off, -1, "a pc equal to the prologue's end belongs to it");
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 11, &off));
	cr_assert_eq(off, 0);
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 17, &off));
	cr_assert_eq(off, 2);
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 28, &off));
	cr_assert_eq(off, 2, "a return address at the end of a bytecode's code belongs to it");
	cr_assert(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 29, &off));
	cr_assert_eq(off, 7);
	cr_assert_not(baseline_bytecode_offset(&bs, t.b, t.n, bc, sizeof(bc), 100, &off),
		      "past the table's end");
	bytecode_sizes_free(&bs);
	uint8_t bad[6] = {1, 2, 0, 1, 1, 1};
	cr_assert_not(bytecode_sizes_from(&bs, bad, sizeof(bad)), "a zero size is implausible");
	cr_assert_not(bytecode_sizes_from(&bs, bad, 5), "not three rows");
}

/* --- inlining from deoptimization data -------------------------------------------------------- */

static int expand(uint64_t deopt, uint64_t position, struct inline_frame *f, int max)
{
	struct inlining_data d;
	inlining_load(&fh.h, deopt, &d);
	int n = inlining_expand(&d, position, f, max);
	inlining_free(&d);
	return n;
}

static uint64_t byte_array(const void *data, size_t n)
{
	uint64_t a = fh_obj(&fh, T_BYTE_ARRAY, 16 + n);
	fh_set(&fh, a, 8, fh_smi((int64_t)n));
	memcpy(fh_ptr(&fh, a - 1 + 16), data, n);
	return a;
}

static uint64_t fixed_array(int type, int n)
{
	uint64_t a = fh_obj(&fh, type, 16 + 8 * (size_t)n);
	fh_set(&fh, a, 8, fh_smi(n));
	return a;
}

static uint64_t sfi(void)
{
	return fh_obj(&fh, FT_SFI, 64);
}

struct record {
	uint64_t position;
	int32_t function_id, pad;
};

/* deopt data of an outer function that inlined a (id 0, literal 0), which inlined b (id 1,
 * literal 1) */
static uint64_t deopt_data(uint64_t outer, uint64_t a, uint64_t b, bool weak)
{
	uint64_t deopt = fixed_array(FT_FIXED_ARRAY, 10);
	uint64_t lits = fixed_array(weak ? T_WEAK_FIXED_ARRAY : FT_FIXED_ARRAY, 2);
	fh_set(&fh, lits, 16, weak ? a | 2 : a);
	fh_set(&fh, lits, 24, weak ? b | 2 : b);
	struct record r[2] = {
	    {srcpos(500, -1), 0, 0}, /* a was called at 500 in outer */
	    {srcpos(300, 0), 1, 0},  /* b was called at 300 in a */
	};
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_INLINED_COUNT], fh_smi(2));
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_LITERALS], lits);
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_SFI], outer);
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_INLINING_POS], byte_array(r, sizeof(r)));
	return deopt;
}

Test(positions, inlining_expands_innermost_first)
{
	uint64_t outer = sfi(), a = sfi(), b = sfi();
	for (int weak = 0; weak < 2; weak++) {
		uint64_t deopt = deopt_data(outer, a, b, weak);
		struct inline_frame f[8];
		/* a position inside b (inlining id 1) */
		int n = expand(deopt, srcpos(42, 1), f, 8);
		cr_assert_eq(n, 3, "b, a, outer");
		cr_assert_eq(f[0].sfi, b);
		cr_assert_eq(f[0].script_offset, 42);
		cr_assert(f[0].inlined);
		cr_assert_eq(f[1].sfi, a);
		cr_assert_eq(f[1].script_offset, 300);
		cr_assert_eq(f[2].sfi, outer);
		cr_assert_eq(f[2].script_offset, 500);
		cr_assert_not(f[2].inlined);
		/* a position of the outer function itself */
		n = expand(deopt, srcpos(77, -1), f, 8);
		cr_assert_eq(n, 1);
		cr_assert_eq(f[0].sfi, outer);
		cr_assert_eq(f[0].script_offset, 77);
	}
}

Test(positions, inlining_with_wrapped_shared_function_info)
{
	/* V8 >= 12.6: no SharedFunctionInfo index; a wrapper at its own index */
	uint64_t outer = sfi(), a = sfi(), b = sfi();
	uint64_t deopt = deopt_data(outer, a, b, true);
	uint64_t wrapper = fh_obj(&fh, T_SFI_WRAPPER, 16);
	fh_set(&fh, wrapper, 8, outer);
	fh.L.src[L_DEOPT_SFI] = SRC_MISSING;
	fh_set_item(&fh.L, L_DEOPT_WRAPPED_SFI, 8);
	fh_set_item(&fh.L, L_T_SFI_WRAPPER, T_SFI_WRAPPER);
	fh_set_item(&fh.L, L_SFI_WRAPPER_SFI, 8);
	fh_set(&fh, deopt, 16 + 8 * 8, wrapper);
	fh_set(&fh, deopt, 16 + 8 * 6, fh_smi(0)); /* the old slot holds something else */
	cr_assert_eq(deopt_outer_sfi(&fh.h, deopt), outer);
	struct inline_frame f[8];
	cr_assert_eq(expand(deopt, srcpos(42, 1), f, 8), 3);
	cr_assert_eq(f[2].sfi, outer);
}

Test(positions, inlining_rejects_bad_records)
{
	uint64_t outer = sfi(), a = sfi(), b = sfi();
	uint64_t deopt = deopt_data(outer, a, b, false);
	struct inline_frame f[8];
	/* an inlining id beyond the records: the outermost frame with an unknown position */
	int n = expand(deopt, srcpos(42, 9), f, 8);
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].sfi, outer);
	cr_assert_eq(f[0].script_offset, -1);
	/* records whose ids do not decrease would loop: stop */
	struct record loop[2] = {{srcpos(1, 1), 0, 0}, {srcpos(2, 0), 1, 0}};
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_INLINING_POS], byte_array(loop, sizeof(loop)));
	n = expand(deopt, srcpos(42, 1), f, 8);
	cr_assert_leq(n, 3);
	cr_assert_eq(f[n - 1].sfi, outer);
	/* not deoptimization data at all */
	cr_assert_eq(expand(fh_str1(&fh, "x"), srcpos(1, -1), f, 8), 0);
}

/* --- PC → Code ----------------------------------------------------------------------------------- */

/* A Code object (Node 20 layout: instruction start pointer at 40, flags 48, size 56) and the
 * InstructionStream holding its instructions (map, back pointer, body at 16), 32-aligned. */
static uint64_t make_code(uint64_t *body, int kind, uint32_t size)
{
	fh_set_item(&fh.L, L_IS_BODY, 16);
	fh_set_item(&fh.L, L_IS_CODE, 8);
	fh_set_item(&fh.L, L_CODE_DEOPT_DATA, 16);
	fh_set_item(&fh.L, L_CODE_SPT, 24);
	fh_set_item(&fh.L, L_CODE_INSTR_START, 40);
	fh_set_item(&fh.L, L_CODE_FLAGS, 48);
	fh_set_item(&fh.L, L_CODE_INSTR_SIZE, 56);
	uint64_t code = fh_obj(&fh, T_CODE, 80);
	uint64_t raw = fh_alloc(&fh, 64 + size) - 1;
	uint64_t start = (raw + 16 + 31) & ~(uint64_t)31;
	uint64_t is = start - 16 + 1;
	fh_set(&fh, is, 0, fh_map(&fh, T_IS));
	fh_set(&fh, is, 8, code);
	fh_set(&fh, code, fh.L.v[L_CODE_INSTR_START], start);
	fh_set32(&fh, code, fh.L.v[L_CODE_FLAGS], (uint32_t)kind);
	fh_set32(&fh, code, fh.L.v[L_CODE_INSTR_SIZE], size);
	*body = start;
	return code;
}

Test(positions, code_found_by_scanning_below_the_pc)
{
	uint64_t start;
	uint64_t code = make_code(&start, fh.L.v[L_CODEKIND_TURBOFAN], 600);
	struct code_finder cf;
	code_finder_init(&cf);
	struct v8_code c;
	cr_assert(code_find(&cf, &fh.h, start + 450, 0, &c), "scan from a pc deep inside");
	cr_assert_eq(c.code, code);
	cr_assert_eq(c.tier, CT_TURBOFAN);
	cr_assert_eq(cf.scans, 1);
	cr_assert(code_find(&cf, &fh.h, start + 10, 0, &c));
	cr_assert_eq(cf.hits, 1, "the second lookup is served by the cache (re-validated)");
	cr_assert_not(code_find(&cf, &fh.h, start + 600, 0, &c), "just past the instructions");
	/* the cached Code dies and its memory holds something else: no stale answer */
	fh_set32(&fh, code, fh.L.v[L_CODE_INSTR_SIZE], 8);
	cr_assert_not(code_find(&cf, &fh.h, start + 450, 0, &c));
	code_finder_free(&cf);
}

Test(positions, code_scan_needs_a_matching_back_pointer)
{
	uint64_t start;
	uint64_t code = make_code(&start, fh.L.v[L_CODEKIND_BASELINE], 200);
	/* the holder's back pointer names another Code: not this holder */
	uint64_t other = fh_obj(&fh, T_CODE, 80);
	fh_set(&fh, start - 16 + 1, 8, other);
	struct code_finder cf;
	code_finder_init(&cf);
	struct v8_code c;
	cr_assert_not(code_find(&cf, &fh.h, start + 20, 0, &c));
	/* the hint (the function's code) is checked against the pc too */
	cr_assert(code_find(&cf, &fh.h, start + 20, code, &c));
	cr_assert_eq(c.tier, CT_BASELINE);
	cr_assert_not(code_find(&cf, &fh.h, start + 300, code, &c));
	code_finder_free(&cf);
}

/* A dead Code object outside the code space still reads as it was after its instructions' memory
 * was swept and given to new code (measured on prettier, Node 24: a quarter of the frames
 * returning from Map.prototype.set were named from a dead function's tables, at its first line);
 * the InstructionStream there names its own Code, and the cache must not answer with the dead one. */
Test(positions, a_cached_code_whose_instructions_hold_new_code_is_not_returned)
{
	uint64_t start;
	uint64_t code = make_code(&start, fh.L.v[L_CODEKIND_TURBOFAN], 600);
	struct code_finder cf;
	code_finder_init(&cf);
	struct v8_code c;
	code_finder_begin_walk(&cf);
	cr_assert(code_find(&cf, &fh.h, start + 450, 0, &c));
	cr_assert_eq(c.code, code);
	/* the collector frees the instructions and new code moves in: the holder at the same place
	 * now names another Code (which covers the pc), while the dead Code still reads as before */
	uint64_t newer = fh_obj(&fh, T_CODE, 80);
	fh_set(&fh, newer, fh.L.v[L_CODE_INSTR_START], start);
	fh_set32(&fh, newer, fh.L.v[L_CODE_FLAGS], (uint32_t)fh.L.v[L_CODEKIND_MAGLEV]);
	fh_set32(&fh, newer, fh.L.v[L_CODE_INSTR_SIZE], 600);
	fh_set(&fh, start - 16 + 1, 8, newer);
	/* within the walk that checked it, the cache still answers (one check a walk) */
	cr_assert(code_find(&cf, &fh.h, start + 10, 0, &c));
	cr_assert_eq(c.code, code);
	code_finder_begin_walk(&cf);
	cr_assert(code_find(&cf, &fh.h, start + 450, 0, &c), "found again by the scan");
	cr_assert_eq(c.code, newer, "the Code the holder names, not the dead one");
	cr_assert_eq(c.tier, CT_MAGLEV);
	cr_assert_eq(cf.stale, 1);
	code_finder_free(&cf);
}

/* --- an optimized frame end to end, and what a batch copies before its decode ----------------- */

/* TurboFan code of `outer` that inlined a, which inlined b; code offsets: [0,100) the outer
 * function, [100,200) b (inlined in a), [200,300) a, then the outer function again. Returns the
 * Code; *start is its first instruction. */
static uint64_t code_with_inlining(uint64_t *start, uint64_t outer, uint64_t a, uint64_t b)
{
	uint64_t code = make_code(start, fh.L.v[L_CODEKIND_TURBOFAN], 600);
	fh_set_item(&fh.L, L_SPT_FORMAT, SPT_SIGNED);
	const struct entry e[] = {{0, srcpos(77, -1), true}, {100, srcpos(42, 1), true},
				  {200, srcpos(10, 0), true}, {300, srcpos(80, -1), true}};
	struct bytes t;
	encode(&t, SPT_SIGNED, e, 4);
	fh_set(&fh, code, fh.L.v[L_CODE_SPT], byte_array(t.b, t.n));
	fh_set(&fh, code, fh.L.v[L_CODE_DEOPT_DATA], deopt_data(outer, a, b, false));
	return code;
}

Test(positions, optimized_frame_expands_and_inlined_at_names_only_the_pcs_chain)
{
	uint64_t start, outer = sfi(), a = sfi(), b = sfi();
	uint64_t code = code_with_inlining(&start, outer, a, b);
	struct bytes t;
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, 24, outer);
	struct positions p;
	positions_init(&p);
	uint64_t sfis[32];
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 150, sfis, 32), 0, "nothing decoded yet");
	struct v8_frame vf = {.kind = VF_JS, .function = fn};
	struct js_site site = {.pc = start + 150, .top = true, .pc_in_frame = true, .pc_in_jit = true};
	struct js_position out[8];
	cr_assert_eq(js_frame_positions(&p, &fh.h, &vf, &site, out, 8), 3, "b, a, outer");
	cr_assert_eq(out[0].sfi, b);
	cr_assert(out[0].inlined);
	cr_assert_eq(out[1].sfi, a);
	cr_assert_eq(out[2].sfi, outer);
	cr_assert_not(out[2].inlined);
	/* what the batch before a later decode copies: the functions inlined at that pc, innermost
	 * first — not every function the code inlined */
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 150, sfis, 32), 2);
	cr_assert_eq(sfis[0], b);
	cr_assert_eq(sfis[1], a);
	/* a pc no decode has asked about, in code decoded before: the code cache finds the code by
	 * its range, and the code's tables answer */
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 250, sfis, 32), 1, "in a, which inlined nothing there");
	cr_assert_eq(sfis[0], a);
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start - 16, sfis, 32), 0, "a pc outside the code");
	for (uint64_t at = 50; at < 400; at += 100) {
		site.pc = start + at;
		js_frame_positions(&p, &fh.h, &vf, &site, out, 8);
	}
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 250, sfis, 32), 1, "the same once decoded there");
	cr_assert_eq(sfis[0], a);
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 50, sfis, 32), 0, "the outer function's own code");
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 350, sfis, 32), 0);
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 150, sfis, 1), 1, "at most max");
	/* the Code gets another position table (V8 replaced its tables): the lookups remembered for
	 * the old one are not answered for it */
	const struct entry e2[] = {{0, srcpos(10, 0), true}, {300, srcpos(80, -1), true}};
	encode(&t, SPT_SIGNED, e2, 2);
	fh_set(&fh, code, fh.L.v[L_CODE_SPT], byte_array(t.b, t.n));
	site.pc = start + 150;
	cr_assert_eq(js_frame_positions(&p, &fh.h, &vf, &site, out, 8), 2, "a, outer: the new table");
	cr_assert_eq(out[0].sfi, a);
	cr_assert_eq(positions_inlined_at(&p, &fh.L, start + 150, sfis, 32), 1);
	cr_assert_eq(sfis[0], a);
	positions_free(&p);
}

/* A pc in optimized code whose frame is not at fp (a prologue before the frame is built, an
 * epilogue after it is torn down): the code's own functions at that pc, unless the frame at fp is
 * the code's. */
Test(positions, frameless_code_is_named_from_the_pcs_code)
{
	uint64_t start, outer = sfi(), a = sfi(), b = sfi(), caller = sfi();
	code_with_inlining(&start, outer, a, b);
	uint64_t own = fh_obj(&fh, FT_JSFUNCTION, 64), other = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, own, 24, outer);
	fh_set(&fh, other, 24, caller);
	struct positions p;
	positions_init(&p);
	struct js_position out[8];
	/* in its prologue: the caller's JS frame at fp */
	cr_assert_eq(positions_frameless_code(&p, &fh.h, start + 4, other, out, 8), 1);
	cr_assert_eq(out[0].sfi, outer);
	cr_assert_not(out[0].inlined);
	cr_assert_eq(out[0].tier, TIER_TURBOFAN);
	cr_assert_eq(out[0].script_offset, 77);
	/* at an inlined function's code, under a typed frame (a builtin's that called it) */
	cr_assert_eq(positions_frameless_code(&p, &fh.h, start + 150, 0, out, 8), 3, "b, a, outer");
	cr_assert_eq(out[0].sfi, b);
	cr_assert(out[0].inlined);
	cr_assert_eq(out[2].sfi, outer);
	/* the frame at fp is the code's own function's: not frameless */
	cr_assert_eq(positions_frameless_code(&p, &fh.h, start + 4, own, out, 8), 0);
	/* a pc in no code, and no room */
	cr_assert_eq(positions_frameless_code(&p, &fh.h, start + 4000, other, out, 8), 0);
	cr_assert_eq(positions_frameless_code(&p, &fh.h, start + 4, other, out, 0), 0);
	positions_free(&p);
}

/* --- an interpreted frame end to end --------------------------------------------------------- */

Test(positions, interpreted_frame_position)
{
	/* BytecodeArray (Node 20 layout: length 8, position table at 32, bytecodes at 54) */
	const struct entry e[] = {{0, srcpos(20, -1), true}, {6, srcpos(33, -1), false}};
	struct bytes t;
	encode(&t, SPT_SIGNED, e, 2);
	uint64_t bca = fh_obj(&fh, T_BCA, 54 + 16);
	fh_set(&fh, bca, 8, fh_smi(16));
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], byte_array(t.b, t.n));
	uint64_t s = sfi();
	uint64_t fn = fh_obj(&fh, FT_JSFUNCTION, 64);
	fh_set(&fh, fn, 24, s);
	struct positions p;
	positions_init(&p);
	struct v8_frame vf = {.kind = VF_JS, .function = fn, .bytecode_array = bca};
	struct js_site site = {.pc = 0x1234, .pc_in_frame = true};
	struct js_position out[4];
	/* the frame keeps the offset relative to the tagged array: offset 7 → 7 + 54 - 1 */
	vf.bytecode_offset = fh_smi(7 + 53);
	cr_assert_eq(js_frame_positions(&p, &fh.h, &vf, &site, out, 4), 1);
	cr_assert_eq(out[0].sfi, s);
	cr_assert_eq(out[0].tier, TIER_INTERPRETED);
	cr_assert_eq(out[0].script_offset, 33);
	cr_assert_eq(out[0].source, POS_BYTECODE);
	/* the live offset register wins inside a bytecode handler on top */
	struct regset r = {0};
	reg_set(&r, REG_V8_BYTECODE_ARRAY, bca);
	reg_set(&r, REG_V8_BYTECODE_OFFSET, 2 + 53);
	site.top = site.in_handler = true;
	site.regs = &r;
	js_frame_positions(&p, &fh.h, &vf, &site, out, 4);
	cr_assert_eq(out[0].script_offset, 20);
	/* an offset outside the array, or no position table: the function start */
	site.top = site.in_handler = false;
	vf.bytecode_offset = fh_smi(99 + 53);
	js_frame_positions(&p, &fh.h, &vf, &site, out, 4);
	cr_assert_eq(out[0].script_offset, -1);
	cr_assert_eq(out[0].source, POS_FUNCTION_START);
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], fh_smi(0)); /* lazy source positions */
	vf.bytecode_offset = fh_smi(7 + 53);
	js_frame_positions(&p, &fh.h, &vf, &site, out, 4);
	cr_assert_eq(out[0].script_offset, -1);
	positions_free(&p);
}

/* A kept decoding is found by the array's length and table word alone: the table itself is not
 * read again (the after-stop batch leaves it out), and a changed array is decoded anew. */
Test(positions, a_bytecode_arrays_decoding_is_found_without_its_table)
{
	const struct entry e[] = {{0, srcpos(20, -1), true}, {6, srcpos(33, -1), false}};
	struct bytes t;
	encode(&t, SPT_SIGNED, e, 2);
	uint64_t bca = fh_obj(&fh, T_BCA, 54 + 16), table = byte_array(t.b, t.n);
	fh_set(&fh, bca, 8, fh_smi(16));
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], table);
	struct positions p;
	positions_init(&p);
	cr_assert_not(positions_bca_kept(&p, &fh.h, bca));
	cr_assert_eq(positions_bytecode_offset_position(&p, &fh.h, bca, 6), 33);
	cr_assert(positions_bca_kept(&p, &fh.h, bca));
	/* the table's bytes gone (its map too): the kept decoding still answers */
	memset(fh_ptr(&fh, table - 1), 0, 16 + t.n);
	cr_assert_eq(positions_bytecode_offset_position(&p, &fh.h, bca, 6), 33);
	/* another length, or another table: another array */
	fh_set(&fh, bca, 8, fh_smi(18));
	cr_assert_not(positions_bca_kept(&p, &fh.h, bca));
	fh_set(&fh, bca, 8, fh_smi(16));
	cr_assert(positions_bca_kept(&p, &fh.h, bca));
	fh_set(&fh, bca, fh.L.v[L_BCA_SPT], byte_array(t.b, t.n));
	cr_assert_not(positions_bca_kept(&p, &fh.h, bca));
	cr_assert_eq(positions_bytecode_offset_position(&p, &fh.h, bca, 6), 33);
	cr_assert(positions_bca_kept(&p, &fh.h, bca));
	positions_free(&p);
}

/* --- Error.stack string rules ---------------------------------------------------------------- */

#define S(lit) lit, strlen(lit) /* a literal as counted bytes */
Test(positions, callsite_string_rules)
{
	cr_assert(callsite_is_identifier(S("paint")));
	cr_assert(callsite_is_identifier(S("$_x9")));
	cr_assert(callsite_is_identifier(S("площадь")));
	cr_assert_not(callsite_is_identifier(S("get area")));
	cr_assert_not(callsite_is_identifier(S("o.x")));
	cr_assert_not(callsite_is_identifier(S("9lives")));
	cr_assert_not(callsite_is_identifier(S("")));
	cr_assert(callsite_ends_with_method(S("step"), S("step"), false));
	cr_assert(callsite_ends_with_method(S("Module._compile"), S("_compile"), false));
	cr_assert_not(callsite_ends_with_method(S("get area"), S("area"), false));
	cr_assert(callsite_ends_with_method(S("get area"), S("area"), true));
	cr_assert_not(callsite_ends_with_method(S("step"), S("_onImmediate"), true));
	cr_assert_not(callsite_ends_with_method(S("xarea"), S("area"), true));
}

/* --- Maglev safepoints -------------------------------------------------------------------------- */

Test(positions, maglev_safepoint_table_of_node_26)
{
	/* the first six entries of a Maglev function's table, as dumped from Node 26 (length
	 * rewritten from 12 to 6): pcs 0x23, 0x8e, 0x174, 0x236 carry deopt indexes 7-10, 0x25d none */
	uint8_t t[] = {0x06, 0, 0, 0, 0x0a, 0, 0, 0, 0xa3, 0, 0, 0, 0x01, 0, 0, 0,
		       0x23, 0x00, 0x08, 0xbd, 0x03, 0x00, 0x00, 0x8e, 0x00, 0x09, 0xc1, 0x03, 0x00, 0x00,
		       0x74, 0x01, 0x0a, 0xc5, 0x03, 0x00, 0x00, 0x36, 0x02, 0x0b, 0xc9, 0x03, 0x02, 0x02,
		       0x5d, 0x02, 0x00, 0x00, 0x00, 0x02, 0x02, 0x90, 0x02, 0x0c, 0xcd, 0x03, 0x03, 0x02};
	cr_assert_eq(maglev_safepoints_size(t, sizeof(t)), sizeof(t), "16 header bytes, six 7-byte entries");
	int index;
	cr_assert(maglev_deopt_index(t, sizeof(t), 0x23, &index));
	cr_assert_eq(index, 7);
	cr_assert(maglev_deopt_index(t, sizeof(t), 0x236, &index));
	cr_assert_eq(index, 10);
	cr_assert(maglev_deopt_index(t, sizeof(t), 0x290, &index));
	cr_assert_eq(index, 11);
	cr_assert_not(maglev_deopt_index(t, sizeof(t), 0x25d, &index), "a safepoint without deopt data");
	cr_assert_not(maglev_deopt_index(t, sizeof(t), 0x24, &index), "not a safepoint");
	cr_assert_not(maglev_deopt_index(t, sizeof(t) - 1, 0x290, &index), "a truncated table");
	t[8] = 0x7f; /* implausible entry sizes */
	cr_assert_eq(maglev_safepoints_size(t, sizeof(t)), 0);
}

Test(positions, maglev_deopt_index_bounds)
{
	/* one entry, 1-byte pc, 4-byte deopt index (stored + 1): the largest stored value is the
	 * largest int index; past it is damage, not an index (and not a signed overflow) */
	uint8_t t[] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x02, 0, 0, 0, 0, 0, 0,
		       0x10, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00};
	int index;
	cr_assert(maglev_deopt_index(t, sizeof(t), 0x10, &index));
	cr_assert_eq(index, 0x7fffffff);
	t[17] = 0x01; /* stored 0x80000001 */
	cr_assert_not(maglev_deopt_index(t, sizeof(t), 0x10, &index));
	memset(t + 17, 0xff, 4);
	cr_assert_not(maglev_deopt_index(t, sizeof(t), 0x10, &index));
	memset(t + 17, 0, 4);
	cr_assert_not(maglev_deopt_index(t, sizeof(t), 0x10, &index), "stored 0: no deopt entry");
}
