/* cfi.c — native unwinding by .eh_frame CFI. libdw finds and interprets the FDE/CIE for a PC; the
 * rules are compiled into a small table (CFA = reg + off; each register same / undefined / saved at
 * CFA+off / = CFA+off / = another register) and cached per PC. Rules outside that form (PLT
 * expressions, signal trampolines) are evaluated by a small DWARF expression interpreter. */
#include "cfi.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

enum how { H_SAME, H_UNDEF, H_AT, H_VAL, H_REG };

struct cfi_rule {
	bool simple;
	bool signal;
	uint8_t cfa_reg;
	int64_t cfa_off;
	uint8_t how[ARCH_NREGS];
	int64_t off[ARCH_NREGS]; /* offset from CFA (H_AT, H_VAL) or register number (H_REG) */
};

void cfi_cache_init(struct cfi_cache *c, size_t max_rules)
{
	memset(c, 0, sizeof(*c));
	c->max_rules = max_rules;
}

void cfi_cache_free(struct cfi_cache *c)
{
	for (size_t i = 0; i < c->nimg; i++)
		u64map_free(&c->per_img[i].idx);
	free(c->rules);
	memset(c, 0, sizeof(*c));
}

static void cache_reset(struct cfi_cache *c)
{
	for (size_t i = 0; i < c->nimg; i++)
		u64map_clear(&c->per_img[i].idx);
	c->nrules = 0;
}

static struct u64map *img_index(struct cfi_cache *c, const struct elf_image *img)
{
	for (size_t i = 0; i < c->nimg; i++)
		if (c->per_img[i].img == img)
			return &c->per_img[i].idx;
	if (c->nimg == sizeof(c->per_img) / sizeof(c->per_img[0]))
		return NULL;
	c->per_img[c->nimg].img = img;
	u64map_init(&c->per_img[c->nimg].idx, 0);
	return &c->per_img[c->nimg++].idx;
}

/* ---- DWARF expression evaluation (the subset CFI uses) ---- */

struct eval_env {
	const struct regset *regs;
	struct memsrc *mem;
	uint64_t cfa;
	bool have_cfa;
};

static bool eval_expr(const Dwarf_Op *ops, size_t nops, const struct eval_env *env, uint64_t *result,
		      bool *is_value)
{
	uint64_t st[16];
	int sp = 0;
	*is_value = false;
#define PUSH(v)                                                                                    \
	do {                                                                                       \
		if (sp >= 16)                                                                      \
			return false;                                                              \
		st[sp++] = (v);                                                                    \
	} while (0)
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if (sp < (n))                                                                      \
			return false;                                                              \
	} while (0)
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			int r = a - DW_OP_breg0;
			if (r >= ARCH_NREGS || !reg_ok(env->regs, r))
				return false;
			PUSH(env->regs->r[r] + op->number);
		} else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			int r = a - DW_OP_reg0;
			if (r >= ARCH_NREGS || !reg_ok(env->regs, r))
				return false;
			PUSH(env->regs->r[r]);
			*is_value = true;
		} else {
			switch (a) {
			case DW_OP_bregx:
				if (op->number >= ARCH_NREGS || !reg_ok(env->regs, (int)op->number))
					return false;
				PUSH(env->regs->r[op->number] + op->number2);
				break;
			case DW_OP_regx:
				if (op->number >= ARCH_NREGS || !reg_ok(env->regs, (int)op->number))
					return false;
				PUSH(env->regs->r[op->number]);
				*is_value = true;
				break;
			case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
			case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
			case DW_OP_constu: case DW_OP_consts:
				PUSH(op->number);
				break;
			case DW_OP_call_frame_cfa:
				if (!env->have_cfa)
					return false;
				PUSH(env->cfa);
				break;
			case DW_OP_plus_uconst:
				NEED(1);
				st[sp - 1] += op->number;
				break;
			case DW_OP_deref: {
				NEED(1);
				uint64_t v;
				if (!mem_read_u64(env->mem, st[sp - 1], &v))
					return false;
				st[sp - 1] = v;
				break;
			}
			case DW_OP_dup:
				NEED(1);
				{
					uint64_t top = st[sp - 1];
					PUSH(top);
				}
				break;
			case DW_OP_drop:
				NEED(1);
				sp--;
				break;
			case DW_OP_swap: {
				NEED(2);
				uint64_t t = st[sp - 1];
				st[sp - 1] = st[sp - 2];
				st[sp - 2] = t;
				break;
			}
			case DW_OP_neg:
				NEED(1);
				st[sp - 1] = -st[sp - 1];
				break;
			case DW_OP_nop:
				break;
			case DW_OP_stack_value:
				*is_value = true;
				break;
			case DW_OP_plus: case DW_OP_minus: case DW_OP_and: case DW_OP_or: case DW_OP_mul:
			case DW_OP_shl: case DW_OP_shr: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
			case DW_OP_lt: case DW_OP_eq: case DW_OP_ne: {
				NEED(2);
				sp--;
				uint64_t b = st[sp], x = st[sp - 1];
				int64_t sx = (int64_t)x, sb = (int64_t)b;
				uint64_t r;
				switch (a) {
				case DW_OP_plus: r = x + b; break;
				case DW_OP_minus: r = x - b; break;
				case DW_OP_and: r = x & b; break;
				case DW_OP_or: r = x | b; break;
				case DW_OP_mul: r = x * b; break;
				case DW_OP_shl: r = b < 64 ? x << b : 0; break;
				case DW_OP_shr: r = b < 64 ? x >> b : 0; break;
				case DW_OP_ge: r = sx >= sb; break;
				case DW_OP_gt: r = sx > sb; break;
				case DW_OP_le: r = sx <= sb; break;
				case DW_OP_lt: r = sx < sb; break;
				case DW_OP_eq: r = x == b; break;
				default: r = x != b; break;
				}
				st[sp - 1] = r;
				break;
			}
			default:
				return false;
			}
		}
	}
#undef PUSH
#undef NEED
	if (sp < 1)
		return false;
	*result = st[sp - 1];
	return true;
}

/* ---- compiling libdw's answer into a cached rule ---- */

static bool compile_reg(const Dwarf_Op *ops, size_t nops, const Dwarf_Op *ops_mem, uint8_t *how,
			int64_t *off)
{
	if (nops == 0) {
		*how = ops == ops_mem ? H_UNDEF : H_SAME;
		return true;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		size_t k = 1;
		int64_t o = 0;
		if (k < nops && ops[k].atom == DW_OP_plus_uconst)
			o = (int64_t)ops[k++].number;
		bool val = k < nops && ops[k].atom == DW_OP_stack_value;
		if (val)
			k++;
		if (k == nops) {
			*how = val ? H_VAL : H_AT;
			*off = o;
			return true;
		}
		return false;
	}
	if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31 &&
	    ops[0].atom - DW_OP_reg0 < ARCH_NREGS) {
		*how = H_REG;
		*off = ops[0].atom - DW_OP_reg0;
		return true;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < ARCH_NREGS) {
		*how = H_REG;
		*off = (int64_t)ops[0].number;
		return true;
	}
	return false;
}

static void compile(Dwarf_Frame *fr, struct cfi_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->simple = false;
	Dwarf_Addr start, end;
	bool signal = false;
	dwarf_frame_info(fr, &start, &end, &signal);
	rule->signal = signal;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
		return;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 &&
	    ops[0].atom - DW_OP_breg0 < ARCH_NREGS) {
		rule->cfa_reg = ops[0].atom - DW_OP_breg0;
		rule->cfa_off = (int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx && ops[0].number < ARCH_NREGS) {
		rule->cfa_reg = (uint8_t)ops[0].number;
		rule->cfa_off = (int64_t)ops[0].number2;
	} else {
		return;
	}
	for (int r = 0; r < ARCH_NREGS; r++) {
		Dwarf_Op mem[3];
		Dwarf_Op *rops;
		size_t rn;
		if (dwarf_frame_register(fr, r, mem, &rops, &rn) != 0)
			return;
		if (!compile_reg(rops, rn, mem, &rule->how[r], &rule->off[r]))
			return;
	}
	rule->simple = true;
}

/* A register saved below the frame's sp: an epilogue's row after its pops (CFA = rsp + 8 at the
 * ret, the saves still described at CFA - 16 and down). The slot is dead stack, the register
 * already holds what was popped from it: its value is taken, not the slot's — which a copy of the
 * stack from sp on (the kernel's, ptrace/switch_copy.h) does not hold, and which the running
 * thread has written over since. Not the return address: no pop restores it. */
static bool below_sp(const struct regset *in, int r, uint64_t slot)
{
	return r != REG_RA && reg_ok(in, REG_SP) && slot < in->r[REG_SP] && reg_ok(in, r);
}

/* The caller's pc is the return address the RA column restored (x86-64: that column is rip
 * itself; arm64: x30), its pointer authentication code cleared; the caller's own RA register
 * keeps the signed value it held. */
static void caller_pc(const struct regset *in, struct regset *o)
{
	o->pac_mask = in->pac_mask;
	reg_set(o, REG_PC, reg_strip_pac(in, o->r[REG_RA]));
}

static enum cfi_result apply_rule(const struct cfi_rule *rule, const struct regset *in,
				  struct regset *out, struct memsrc *mem)
{
	if (!reg_ok(in, rule->cfa_reg))
		return CFI_BAD;
	uint64_t cfa = in->r[rule->cfa_reg] + (uint64_t)rule->cfa_off;
	struct regset o;
	memset(&o, 0, sizeof(o));
	for (int r = 0; r < ARCH_NREGS; r++) {
		uint64_t v;
		switch (rule->how[r]) {
		case H_SAME:
			if (reg_ok(in, r))
				reg_set(&o, r, in->r[r]);
			break;
		case H_AT:
			if (below_sp(in, r, cfa + (uint64_t)rule->off[r]))
				reg_set(&o, r, in->r[r]);
			else if (mem_read_u64(mem, cfa + (uint64_t)rule->off[r], &v))
				reg_set(&o, r, v);
			else if (r == REG_RA)
				return CFI_BAD;
			break;
		case H_VAL:
			reg_set(&o, r, cfa + (uint64_t)rule->off[r]);
			break;
		case H_REG:
			if (reg_ok(in, (int)rule->off[r]))
				reg_set(&o, r, in->r[rule->off[r]]);
			break;
		default:
			break;
		}
	}
	if (rule->how[REG_RA] == H_UNDEF)
		return CFI_END;
	if (!reg_ok(&o, REG_RA))
		return CFI_BAD;
	/* the CFA is the caller's stack pointer unless CFI says otherwise */
	if (rule->how[REG_SP] == H_SAME || rule->how[REG_SP] == H_UNDEF)
		reg_set(&o, REG_SP, cfa);
	caller_pc(in, &o);
	*out = o;
	return CFI_OK;
}

/* Evaluate the frame's rules directly (expressions), without caching. */
static enum cfi_result eval_frame(Dwarf_Frame *fr, const struct regset *in, struct regset *out,
				  struct memsrc *mem)
{
	Dwarf_Op *ops;
	size_t nops;
	struct eval_env env = {.regs = in, .mem = mem};
	bool isval;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops == 0 ||
	    !eval_expr(ops, nops, &env, &env.cfa, &isval))
		return CFI_BAD;
	env.have_cfa = true;
	struct regset o;
	memset(&o, 0, sizeof(o));
	bool ra_undef = false;
	for (int r = 0; r < ARCH_NREGS; r++) {
		Dwarf_Op mem_ops[3];
		Dwarf_Op *rops;
		size_t rn;
		if (dwarf_frame_register(fr, r, mem_ops, &rops, &rn) != 0)
			continue;
		if (rn == 0) {
			if (rops == mem_ops) {
				if (r == REG_RA)
					ra_undef = true;
			} else if (reg_ok(in, r)) {
				reg_set(&o, r, in->r[r]);
			}
			continue;
		}
		uint64_t v;
		if (!eval_expr(rops, rn, &env, &v, &isval))
			continue;
		if (!isval && below_sp(in, r, v))
			v = in->r[r];
		else if (!isval && !mem_read_u64(mem, v, &v))
			continue;
		reg_set(&o, r, v);
	}
	if (ra_undef)
		return CFI_END;
	if (!reg_ok(&o, REG_RA))
		return CFI_BAD;
	if (!reg_ok(&o, REG_SP))
		reg_set(&o, REG_SP, env.cfa);
	caller_pc(in, &o);
	*out = o;
	return CFI_OK;
}

bool cfi_covers(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr)
{
	struct u64map *idx = img_index(c, img);
	uint64_t v;
	if (idx && u64map_get(idx, vaddr + 1, &v))
		return v != 0;
	Dwarf_CFI *cfi = (Dwarf_CFI *)elf_image_cfi(img);
	Dwarf_Frame *fr = NULL;
	bool ok = cfi && dwarf_cfi_addrframe(cfi, vaddr, &fr) == 0 && fr;
	free(fr);
	if (!ok && idx)
		u64map_put(idx, vaddr + 1, 0);
	return ok;
}

/* The rules at vaddr: cached, or compiled (and cached) from its FDE; NULL without one. *frp gets
 * the FDE's frame when it was read (the caller frees it): rules that are not simple are
 * evaluated from it. */
static const struct cfi_rule *rule_at(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr,
				      struct cfi_rule *scratch, Dwarf_Frame **frp)
{
	*frp = NULL;
	struct u64map *idx = img_index(c, img);
	uint64_t v;
	if (idx && u64map_get(idx, vaddr + 1, &v)) {
		c->hits++;
		if (v == 0)
			return NULL;
		if (c->rules[v - 1].simple)
			return &c->rules[v - 1];
	} else {
		c->misses++;
	}
	Dwarf_CFI *cfi = (Dwarf_CFI *)elf_image_cfi(img);
	Dwarf_Frame *fr = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &fr) != 0 || !fr) {
		if (idx)
			u64map_put(idx, vaddr + 1, 0);
		return NULL;
	}
	compile(fr, scratch);
	if (idx) {
		if (c->max_rules && c->nrules >= c->max_rules)
			cache_reset(c);
		XGROW(c->rules, c->cap, c->nrules + 1);
		c->rules[c->nrules] = *scratch;
		u64map_put(idx, vaddr + 1, ++c->nrules);
	}
	*frp = fr;
	return scratch;
}

enum cfi_result cfi_step(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr,
			 const struct regset *in, struct regset *out, struct memsrc *mem,
			 bool *signal_frame)
{
	struct cfi_rule scratch;
	Dwarf_Frame *fr;
	const struct cfi_rule *rule = rule_at(c, img, vaddr, &scratch, &fr);
	*signal_frame = rule && rule->signal;
	if (!rule)
		return CFI_NO_FDE;
	enum cfi_result res = rule->simple ? apply_rule(rule, in, out, mem) : eval_frame(fr, in, out, mem);
	free(fr);
	return res;
}

bool cfi_sp_from_frame_record(struct cfi_cache *c, struct elf_image *img, uint64_t vaddr,
			      uint64_t fp, uint64_t *sp)
{
	struct cfi_rule scratch;
	Dwarf_Frame *fr;
	const struct cfi_rule *rule = rule_at(c, img, vaddr, &scratch, &fr);
	/* {fp, return address} saved side by side from CFA + off: a frame record */
	bool ok = rule && rule->simple && rule->cfa_reg == REG_SP && rule->how[REG_FP] == H_AT &&
		  rule->how[REG_RA] == H_AT && rule->off[REG_RA] == rule->off[REG_FP] + 8;
	if (ok)
		*sp = fp - (uint64_t)rule->off[REG_FP] - (uint64_t)rule->cfa_off;
	free(fr);
	return ok;
}
