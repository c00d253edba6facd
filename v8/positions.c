/* positions.c — current source positions of JS frames, per tier. What a Code object or a
 * BytecodeArray yields once read (position tables, bytecodes, inlining data) is kept per object
 * and reused while the object's identifying fields still match, so that a sample costs few reads
 * of the stopped target. */
#include "positions.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "bytecode.h"
#include "safepoints.h"
#include "spt.h"

void positions_init(struct positions *p)
{
	memset(p, 0, sizeof(*p));
	code_finder_init(&p->codes);
	p->decoded = xcalloc(DECODED_SLOTS, sizeof(*p->decoded));
	p->memo = xcalloc(POS_MEMO_SLOTS, sizeof(*p->memo));
	u64map_init(&p->idx, 8 * DECODED_SLOTS);
}

static void drop(struct decoded *d)
{
	free(d->table);
	free(d->bytecodes);
	free(d->safepoints);
	free(d->deopt_bytecode);
	inlining_free(&d->inl);
	memset(d, 0, sizeof(*d));
}

void positions_free(struct positions *p)
{
	for (int i = 0; p->decoded && i < DECODED_SLOTS; i++)
		drop(&p->decoded[i]);
	free(p->decoded);
	free(p->memo);
	u64map_free(&p->idx);
	code_finder_free(&p->codes);
	bytecode_sizes_free(&p->sizes);
	memset(p, 0, sizeof(*p));
}

/* The cached decoding of obj whose identity is id[], or a fresh slot for it. */
static struct decoded *slot_for(struct positions *p, uint64_t obj, const uint64_t id[3], bool *fresh)
{
	uint64_t k;
	struct decoded *d;
	if (u64map_get(&p->idx, obj, &k) && k && (d = &p->decoded[k - 1])->obj == obj) {
		if (!memcmp(d->id, id, sizeof(d->id))) {
			*fresh = false;
			p->decoded_hits++;
			return d;
		}
		drop(d); /* the same address holds another object now */
		p->decoded_replaced++;
	} else {
		p->decoded_new++;
		k = p->next_slot + 1;
		p->next_slot = (p->next_slot + 1) % DECODED_SLOTS;
		d = &p->decoded[k - 1];
		uint64_t old;
		/* forget the evicted object (unless the index already points elsewhere) */
		if (d->obj && u64map_get(&p->idx, d->obj, &old) && old == k)
			u64map_put(&p->idx, d->obj, 0);
		drop(d);
		u64map_put(&p->idx, obj, k);
	}
	d->obj = obj;
	memcpy(d->id, id, sizeof(d->id));
	d->gen = ++p->gens;
	*fresh = true;
	return d;
}

static void read_table(const struct v8_heap *h, uint64_t table, struct decoded *d)
{
	d->have_table = table && v8_byte_array_read(h, table, V8_TABLE_MAX_BYTES, &d->table, &d->tn);
}

/* Maglev code: the safepoint table after the instructions and the bytecode offset of each
 * deoptimization entry. */
static void read_deopt_entries(const struct v8_heap *h, const struct v8_code *c, struct decoded *d)
{
	const struct v8_layout *L = h->L;
	uint8_t header[MAGLEV_SAFEPOINT_HEADER];
	size_t size;
	if (!v8_has(L, L_MAGLEV_SAFEPOINTS) || !v8_has(L, L_DEOPT_FIRST_ENTRY) ||
	    !mem_read(h->mem, c->start + c->size, header, sizeof(header)) ||
	    !(size = maglev_safepoints_size(header, sizeof(header))))
		return;
	int64_t len = v8_array_length(h, c->deopt), first = L->v[L_DEOPT_FIRST_ENTRY];
	int64_t n = len > first ? (len - first) / 3 : 0;
	if (n <= 0 || n > MAGLEV_SAFEPOINT_MAX)
		return;
	uint64_t *raw = xmalloc((size_t)n * 24);
	d->safepoints = xmalloc(size);
	if (mem_read(h->mem, c->start + c->size, d->safepoints, size) &&
	    v8_read_obj(h, c->deopt, L->v[L_FIXED_ARRAY_DATA] + (int32_t)(8 * first), raw, (size_t)n * 24)) {
		d->sn = size;
		d->deopt_bytecode = xmalloc((size_t)n * sizeof(*d->deopt_bytecode));
		d->ndeopt = (int)n;
		for (int64_t i = 0; i < n; i++)
			d->deopt_bytecode[i] = v8_is_smi(raw[3 * i]) ? (int32_t)v8_smi_value(raw[3 * i]) : INT32_MIN;
	} else {
		free(d->safepoints);
		d->safepoints = NULL;
	}
	free(raw);
}

/* A Code object's tables: its position table (the bytecode-offset table for baseline code) and,
 * for optimized code, what inlining expansion needs. */
static struct decoded *decoded_code(struct positions *p, const struct v8_heap *h, const struct v8_code *c)
{
	uint64_t id[3] = {c->start, c->size << 8 | (uint64_t)c->kind, c->spt ^ (c->deopt << 1)};
	bool fresh;
	struct decoded *d = slot_for(p, c->code, id, &fresh);
	if (fresh) {
		read_table(h, c->spt, d);
		if (c->tier == CT_MAGLEV || c->tier == CT_TURBOFAN)
			inlining_load(h, c->deopt, &d->inl);
		if (c->tier == CT_MAGLEV)
			read_deopt_entries(h, c, d);
	}
	return d;
}

/* What identifies a BytecodeArray's decoding: bca_identity (the table's type is checked when it
 * is decoded, not each time: a kept decoding is found without reading the table, which batched
 * copies then need not hold). */
static bool bca_id(const struct v8_heap *h, uint64_t bca, uint64_t id[3])
{
	id[2] = 0;
	return bca_identity(h, bca, id);
}

bool positions_bca_kept(const struct positions *p, const struct v8_heap *h, uint64_t bca)
{
	uint64_t id[3], k;
	return bca_id(h, bca, id) && u64map_get(&p->idx, bca, &k) && k && p->decoded[k - 1].obj == bca &&
	       !memcmp(p->decoded[k - 1].id, id, sizeof(id));
}

/* A BytecodeArray's position table (absent with lazy source positions) and, on request, its
 * bytecodes. */
static struct decoded *decoded_bca(struct positions *p, const struct v8_heap *h, uint64_t bca,
				   bool need_bytecodes)
{
	uint64_t id[3];
	if (!bca_id(h, bca, id))
		return NULL;
	bool fresh;
	struct decoded *d = slot_for(p, bca, id, &fresh);
	if (fresh)
		read_table(h, bca_position_table(h, bca), d);
	if (need_bytecodes && !d->bytecodes)
		bca_bytecodes(h, bca, &d->bytecodes, &d->bn);
	return d;
}

/* The source position at code_offset in d's table, remembered per (decoding, offset). */
static bool lookup(const struct positions *p, const struct v8_layout *L, const struct decoded *d,
		   int64_t code_offset, uint64_t *pos)
{
	if (!d || !d->have_table)
		return false;
	uint32_t slot = (uint32_t)(d - p->decoded) + 1;
	uint64_t hash = ((uint64_t)slot * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)code_offset * 0xc2b2ae3d27d4eb4full);
	struct pos_memo *m = &p->memo[(hash >> 40) % POS_MEMO_SLOTS];
	if (m->slot == slot && m->gen == d->gen && m->off == code_offset) {
		*pos = m->pos;
		return m->ok;
	}
	bool ok = spt_lookup(d->table, d->tn, (enum spt_format)L->v[L_SPT_FORMAT], code_offset, pos);
	*m = (struct pos_memo){.slot = slot, .gen = d->gen, .off = code_offset, .pos = ok ? *pos : 0, .ok = ok};
	return ok;
}

int32_t positions_bytecode_offset_position(struct positions *p, const struct v8_heap *h,
					   uint64_t bca, int64_t offset)
{
	uint64_t pos;
	if (!lookup(p, h->L, decoded_bca(p, h, bca, false), offset, &pos)) {
		p->no_table++;
		return -1;
	}
	return srcpos_script_offset(pos);
}

static uint64_t function_code_hint(const struct v8_heap *h, uint64_t function)
{
	uint64_t code;
	/* with leaptiering the slot is a dispatch handle, not a pointer */
	if (h->L->v[L_LEAPTIERING] || !v8_has(h->L, L_JSFUNC_CODE) ||
	    !v8_field(h, function, h->L->v[L_JSFUNC_CODE], &code) || !v8_is_heap_object(code))
		return 0;
	return code;
}

/* Is this the baseline code of the function? From V8 10 the Code keeps the BytecodeArray in its
 * deoptimization-data slot and the SharedFunctionInfo's function_data is the Code; V8 9.x wraps it
 * in BaselineData there. */
static bool baseline_code_of(const struct v8_heap *h, const struct v8_code *c, uint64_t sfi,
			     uint64_t bca)
{
	const struct v8_layout *L = h->L;
	if (bca && c->deopt == bca)
		return true;
	uint64_t fd, code;
	if (!v8_has(L, L_SFI_FUNCTION_DATA) || !v8_field(h, sfi, L->v[L_SFI_FUNCTION_DATA], &fd))
		return false;
	if (fd == c->code)
		return true;
	return v8_has(L, L_BASELINE_DATA_CODE) && v8_is(h, fd, L_T_BASELINE_DATA) &&
	       v8_field(h, fd, L->v[L_BASELINE_DATA_CODE], &code) && code == c->code;
}

/* Does this Code run the frame's function? Optimized code names its SharedFunctionInfo in the
 * deoptimization data. */
static bool code_runs(struct positions *p, const struct v8_heap *h, const struct v8_code *c,
		      uint64_t sfi, uint64_t bca)
{
	if (c->tier == CT_BASELINE)
		return baseline_code_of(h, c, sfi, bca);
	if (c->tier == CT_MAGLEV || c->tier == CT_TURBOFAN)
		return decoded_code(p, h, c)->inl.outer == sfi;
	return false;
}

int positions_inlined_at(const struct positions *p, const struct v8_layout *L, uint64_t pc,
			 uint64_t *sfi, int max)
{
	const struct v8_code *c = code_cached_at(&p->codes, pc);
	uint64_t k;
	if (!c || !u64map_get(&p->idx, c->code, &k) || !k || p->decoded[k - 1].obj != c->code)
		return 0;
	const struct decoded *d = &p->decoded[k - 1];
	/* the functions inlined at this pc, as the decode will expand them (not every function
	 * the code inlined: a large optimized function inlines dozens, a pc sits in a few) */
	uint64_t pos;
	struct inline_frame fr[64];
	if (!lookup(p, L, d, (int64_t)(pc - c->start), &pos))
		return 0;
	int nf = inlining_expand(&d->inl, pos, fr, 64), n = 0;
	for (int i = 0; i < nf && n < max; i++)
		if (fr[i].inlined && fr[i].sfi)
			sfi[n++] = fr[i].sfi;
	return n;
}

/* The place in a frame's machine code: the Code, the pc in it, and whether pc is a return
 * address. */
struct code_site {
	struct v8_code c;
	uint64_t pc;
	bool is_return;
};

/* The frame's code and the PC in it: the site's pc when it is in this frame's code, else a
 * return address the caller of a frameless builtin (or prologue) left above the stack pointer. */
static bool frame_code(struct positions *p, const struct v8_heap *h, const struct v8_frame *vf,
		       const struct js_site *site, uint64_t sfi, struct code_site *cs)
{
	uint64_t hint = function_code_hint(h, vf->function);
	uint64_t bca = v8_is_bytecode_array(h, vf->bytecode_array) ? vf->bytecode_array : 0;
	if (site->pc_in_frame) {
		uint64_t probe = site->top ? site->pc : site->pc - 1;
		if (code_find(&p->codes, h, probe, hint, &cs->c) && code_runs(p, h, &cs->c, sfi, bca)) {
			cs->pc = site->pc;
			cs->is_return = !site->top;
			return true;
		}
	}
	for (int i = 0; site->top && !site->pc_in_frame && i < site->ncandidates; i++) {
		uint64_t ra = site->ret_candidates[i];
		if (code_find(&p->codes, h, ra - 1, hint, &cs->c) && code_runs(p, h, &cs->c, sfi, bca)) {
			cs->pc = ra;
			cs->is_return = true;
			return true;
		}
	}
	return false;
}

static uint8_t tier_of(enum code_tier t)
{
	switch (t) {
	case CT_BASELINE: return TIER_BASELINE;
	case CT_MAGLEV: return TIER_MAGLEV;
	case CT_TURBOFAN: return TIER_TURBOFAN;
	default: return TIER_UNKNOWN;
	}
}

static int interpreted(struct positions *p, const struct v8_heap *h, const struct v8_frame *vf,
		       const struct js_site *site, struct js_position *out)
{
	int64_t raw = v8_smi_value(vf->bytecode_offset);
	const struct regset *r = site->regs;
	/* inside a bytecode handler the frame slot may be stale; the handler keeps the offset and
	 * the array in V8's fixed interpreter registers (arch_defs.h: r9 and r12 on x64) */
	if (site->top && site->in_handler && r && reg_ok(r, REG_V8_BYTECODE_ARRAY) &&
	    reg_ok(r, REG_V8_BYTECODE_OFFSET) && r->r[REG_V8_BYTECODE_ARRAY] == vf->bytecode_array)
		raw = (int64_t)r->r[REG_V8_BYTECODE_OFFSET];
	int64_t offset = bca_offset_from_frame(h, vf->bytecode_array, raw);
	out->tier = TIER_INTERPRETED;
	if (offset >= 0 && (out->script_offset = positions_bytecode_offset_position(p, h, vf->bytecode_array, offset)) >= 0)
		out->source = POS_BYTECODE;
	return 1;
}

static int baseline(struct positions *p, const struct v8_heap *h, const struct v8_frame *vf,
		    const struct code_site *cs, struct js_position *out)
{
	out->tier = TIER_BASELINE;
	if (!p->sizes.count || !cs)
		return 1;
	const struct decoded *code = decoded_code(p, h, &cs->c);
	const struct decoded *bc = decoded_bca(p, h, vf->bytecode_array, true);
	int64_t offset;
	if (code->have_table && bc && bc->bytecodes &&
	    baseline_bytecode_offset(&p->sizes, code->table, code->tn, bc->bytecodes, bc->bn,
				     cs->pc - cs->c.start, &offset) &&
	    (out->script_offset = positions_bytecode_offset_position(p, h, vf->bytecode_array, offset)) >= 0)
		out->source = POS_BASELINE;
	return 1;
}

static int optimized(struct positions *p, const struct v8_heap *h, const struct code_site *cs,
		     struct js_position *out, int max)
{
	uint64_t pos;
	const struct decoded *d = decoded_code(p, h, &cs->c);
	out->tier = tier_of(cs->c.tier);
	/* V8 looks up the instruction before a return address: the call itself */
	if (!lookup(p, h->L, d, (int64_t)(cs->pc - cs->c.start) - (cs->is_return ? 1 : 0), &pos)) {
		p->no_table++;
		return 1;
	}
	struct inline_frame fr[64];
	int n = inlining_expand(&d->inl, pos, fr, max < 64 ? max : 64);
	/* Maglev's table can be off inside a peeled loop iteration or out-of-line code; at a call,
	 * the deoptimization entry of its safepoint has the bytecode offset V8 itself would use. It
	 * is the outermost function's: it settles frames without inlining. */
	int index;
	if (n == 1 && cs->is_return && d->safepoints &&
	    maglev_deopt_index(d->safepoints, d->sn, (uint32_t)(cs->pc - cs->c.start), &index) &&
	    index < d->ndeopt && d->deopt_bytecode[index] >= -1) {
		uint64_t bca = sfi_bytecode_array(h, fr[0].sfi);
		int32_t at = bca ? positions_bytecode_offset_position(p, h, bca, d->deopt_bytecode[index]) : -1;
		if (at >= 0)
			fr[0].script_offset = at;
	}
	for (int i = 0; i < n; i++) {
		out[i] = out[0];
		out[i].sfi = fr[i].sfi;
		out[i].script_offset = fr[i].script_offset;
		out[i].source = fr[i].script_offset >= 0 ? POS_CODE : POS_FUNCTION_START;
		out[i].inlined = fr[i].inlined;
	}
	return n > 0 ? n : 1;
}

int positions_frameless_code(struct positions *p, const struct v8_heap *h, uint64_t pc,
			     uint64_t frame_function, struct js_position *out, int max)
{
	uint64_t frame_sfi = 0;
	if (max <= 0 || (frame_function && !v8_field(h, frame_function, h->L->v[L_JSFUNC_SHARED], &frame_sfi)))
		return 0;
	struct code_site cs = {.pc = pc};
	uint64_t hint = frame_function ? function_code_hint(h, frame_function) : 0;
	if (!code_find(&p->codes, h, pc, hint, &cs.c) || (cs.c.tier != CT_MAGLEV && cs.c.tier != CT_TURBOFAN))
		return 0;
	uint64_t outer = decoded_code(p, h, &cs.c)->inl.outer;
	if (!outer || outer == frame_sfi)
		return 0;
	memset(out, 0, sizeof(*out));
	out->sfi = outer;
	out->script_offset = -1;
	out->source = POS_FUNCTION_START;
	return optimized(p, h, &cs, out, max);
}

int js_frame_positions(struct positions *p, const struct v8_heap *h, const struct v8_frame *vf,
		       const struct js_site *site, struct js_position *out, int max)
{
	uint64_t sfi;
	if (max <= 0 || !v8_field(h, vf->function, h->L->v[L_JSFUNC_SHARED], &sfi) ||
	    !v8_is(h, sfi, L_T_SFI))
		return 0;
	memset(out, 0, sizeof(*out));
	out->sfi = sfi;
	out->script_offset = -1;
	out->source = POS_FUNCTION_START;
	out->tier = TIER_UNKNOWN;
	/* Machine code first: OSR code runs in the frame the interpreter (or baseline code) built,
	 * whose BytecodeArray and stale bytecode offset are still in place. Interpreted frames run
	 * in builtins, so their pc is never JIT code. */
	struct code_site cs;
	bool have_code = (site->pc_in_jit || (site->top && !site->pc_in_frame)) &&
			 frame_code(p, h, vf, site, sfi, &cs);
	if (have_code && (cs.c.tier == CT_MAGLEV || cs.c.tier == CT_TURBOFAN))
		return optimized(p, h, &cs, out, max);
	/* interpreted and baseline frames keep their BytecodeArray; the next slot tells them apart
	 * (a Smi offset, or the baseline frame's feedback vector). Optimized frames keep spill
	 * slots there, hence the type check. */
	if (v8_is_bytecode_array(h, vf->bytecode_array)) {
		if (v8_is_smi(vf->bytecode_offset))
			return interpreted(p, h, vf, site, out);
		return baseline(p, h, vf, have_code && cs.c.tier == CT_BASELINE ? &cs : NULL, out);
	}
	if (!have_code)
		p->no_code++;
	return 1;
}
