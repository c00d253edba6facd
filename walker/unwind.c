/* unwind.c — one frame at a time: CFI when the PC's module has an FDE for it, else (at the top of
 * the stack, where the function has not saved its link register) the link register, else one
 * frame-pointer step (pc = [fp+8], fp = [fp], sp by the machine's rule: unwind_arch.h; fp + 16 but
 * for arm64's entry frames; on arm64, where the caller's CFI places its frame record, from the
 * caller's fp). Transitions need no other casing: a V8 EntryFrame's saved fp and
 * return address lead into C++ with CFI, and C++ called from an exit frame returns into a builtin
 * (no FDE), where the frame pointer that CFI restored continues the chain. Every return address
 * has its pointer authentication code (arm64) cleared: regs.h. */
#include "unwind.h"

#include <string.h>

#include "unwind_arch.h"

enum { CFI_CACHE_RULES = 1 << 16 };

void unwinder_init(struct unwinder *u, struct addrspace *as)
{
	memset(u, 0, sizeof(*u));
	u->as = as;
	cfi_cache_init(&u->cfi, CFI_CACHE_RULES);
}

void unwinder_free(struct unwinder *u)
{
	cfi_cache_free(&u->cfi);
}

static bool in_bounds(const struct stack_bounds *b, uint64_t addr)
{
	return addr >= b->lo && addr < b->hi;
}

/* Is pc in an ELF file's code (not V8's)? */
static bool in_elf(struct unwinder *u, uint64_t pc)
{
	struct addr_info ai;
	return addrspace_lookup(u->as, pc, &ai) && ai.mod;
}

/* The ELF image holding pc and pc's link-time address in it; NULL for V8's code or no mapping. */
static struct elf_image *image_at(struct unwinder *u, uint64_t pc, uint64_t *vaddr)
{
	struct addr_info ai;
	if (!addrspace_lookup(u->as, pc, &ai) || !ai.mod || !ai.vaddr_ok)
		return NULL;
	*vaddr = ai.vaddr;
	return addrspace_image(u->as, ai.mod);
}

/* Has the module holding this return address an FDE for it? */
static bool native_at(void *ctx, uint64_t ret)
{
	struct unwinder *u = ctx;
	uint64_t vaddr;
	struct elf_image *img = image_at(u, ret, &vaddr);
	return img && cfi_covers(&u->cfi, img, vaddr - 1);
}

/* A caller found by a frame-pointer step, without its CFI-computed sp, whose sp just above the
 * callee's record leads its CFI nowhere (caller_returns_to_code), where the machine's frame pointer
 * points at its frame record and the caller's CFI places that record: its sp from its fp (cfi.h),
 * which holds whatever the callee pushed above its own record (V8's
 * PushAllRegistersAndIterateStack). Taken only between the callee's record (callee_fp + 16) and the
 * caller's fp, and only where it raises the sp the step gave; called only where
 * ARCH_FP_AT_FRAME_RECORD. */
static void caller_sp_from_record(struct unwinder *u, struct regset *next, uint64_t callee_fp)
{
	if (!reg_ok(next, REG_FP))
		return;
	uint64_t vaddr, sp;
	struct elf_image *img = image_at(u, next->r[REG_PC], &vaddr);
	if (img && cfi_sp_from_frame_record(&u->cfi, img, vaddr - 1, next->r[REG_FP], &sp) &&
	    sp >= callee_fp + 16 && sp <= next->r[REG_FP] && (!reg_ok(next, REG_SP) || sp >= next->r[REG_SP]))
		reg_set(next, REG_SP, sp);
}

/* Does the caller at `next` (its sp as a frame-pointer step gave it: just above the callee's
 * record), stepped by its CFI, return into code with unwind tables? Then that sp is its own: the
 * callee pushed nothing above its record (OpenSSL's sha512_block_armv8 under Debian's
 * SHA512_Final, built without frame pointers, whose x29 is not its record). */
static bool caller_returns_to_code(struct unwinder *u, const struct regset *next, struct memsrc *mem)
{
	uint64_t vaddr;
	struct elf_image *img = image_at(u, next->r[REG_PC], &vaddr);
	struct regset after;
	bool signal;
	return img && cfi_step(&u->cfi, img, vaddr - 1, next, &after, mem, &signal) == CFI_OK && !signal &&
	       reg_ok(&after, REG_PC) && native_at(u, reg_strip_pac(next, after.r[REG_PC]));
}

/* A function without unwind tables whose link register is its return address, stopped inside its
 * prologue past `stp x29, x30, [sp, #-16]!` and before `mov x29, sp` (OpenSSL's
 * sha512_block_armv8 in Debian's libcrypto): the pair at sp is fp and lr as they are. Its caller's
 * sp is then 16 above (a prologue that pushes more at once is not told). Where the function has not
 * pushed them (a leaf, or its first instruction) the caller's sp is its own: taking it from the
 * caller's frame record instead would trust fp to point at that record, which code built without
 * frame pointers (Debian's SHA512_Final) does not keep. */
static bool pushed_its_record(const struct regset *cur, struct memsrc *mem, uint64_t link)
{
	uint64_t pair[2];
	return reg_ok(cur, REG_FP) && reg_ok(cur, REG_SP) && mem_read(mem, cur->r[REG_SP], pair, sizeof(pair)) &&
	       pair[0] == cur->r[REG_FP] && reg_strip_pac(cur, pair[1]) == link;
}

/* At the top of the stack, in an ELF file's code without unwind tables: is the link register the
 * return address (the function has not saved it: a leaf, or a prologue)? Where it returns into
 * code with unwind tables (a return into the function itself, after a call it made, has none) and
 * the frame record at fp does not hold that same address (then the function has saved it, and the
 * frame-pointer step finds its caller with the right sp). OpenSSL's arm64 hash cores
 * (sha512_block_armv8) are such leaves: the frame-pointer step would skip their caller. */
static bool link_is_return(struct unwinder *u, const struct regset *cur, struct memsrc *mem,
			   uint64_t *link)
{
	if (!in_elf(u, cur->r[REG_PC]) || !unwind_top_link(cur, link) || !native_at(u, *link))
		return false;
	uint64_t saved[2];
	return !reg_ok(cur, REG_FP) || cur->r[REG_FP] == 0 ||
	       !mem_read(mem, cur->r[REG_FP], saved, sizeof(saved)) || reg_strip_pac(cur, saved[1]) != *link;
}

static enum cfi_result try_cfi(struct unwinder *u, uint64_t pc, bool exact, const struct regset *in,
			       struct regset *out, struct memsrc *mem, bool *signal)
{
	uint64_t vaddr;
	struct elf_image *img = image_at(u, pc, &vaddr);
	if (!img)
		return CFI_NO_FDE;
	return cfi_step(&u->cfi, img, exact ? vaddr : vaddr - 1, in, out, mem, signal);
}

int unwind_stack(struct unwinder *u, const struct regset *regs, struct memsrc *mem,
		 const struct stack_bounds *bounds, struct raw_frame *out, int max,
		 enum unwind_end *end)
{
	struct regset cur = *regs;
	uint8_t how = FRAME_TOP;
	int n = 0;
	*end = UNWIND_MAX_DEPTH;
	while (n < max) {
		if (!reg_ok(&cur, REG_PC) || !reg_ok(&cur, REG_SP) || cur.r[REG_PC] == 0) {
			*end = n ? UNWIND_FP_END : UNWIND_BROKEN;
			break;
		}
		out[n] = (struct raw_frame){.pc = cur.r[REG_PC], .sp = cur.r[REG_SP],
					    .fp = cur.r[REG_FP], .how = how,
					    .fp_ok = reg_ok(&cur, REG_FP)};
		n++;
		bool exact = how == FRAME_TOP || how == FRAME_SIGNAL_RESUME;
		struct regset next;
		uint64_t link;
		bool signal = false;
		enum cfi_result r = try_cfi(u, cur.r[REG_PC], exact, &cur, &next, mem, &signal);
		if (r == CFI_END) {
			*end = UNWIND_COMPLETE;
			break;
		}
		if (r == CFI_OK) {
			how = signal ? FRAME_SIGNAL_RESUME : FRAME_CFI;
		} else if (r == CFI_NO_FDE && how == FRAME_TOP && link_is_return(u, &cur, mem, &link)) {
			/* the caller from the link register; a leaf keeps the callee-saved registers, and
			 * sp unless it is inside its prologue, past pushing its frame record and before
			 * pointing fp at it: the caller's sp is then 16 above (pushed_its_record) */
			out[n - 1].no_cfi = true;
			next = cur;
			reg_set(&next, REG_PC, link);
			if (pushed_its_record(&cur, mem, link))
				reg_set(&next, REG_SP, cur.r[REG_SP] + 16);
			how = FRAME_LINK;
		} else if (r == CFI_NO_FDE) {
			/* frame-pointer step */
			out[n - 1].no_cfi = true;
			uint64_t fp = cur.r[REG_FP], saved[2];
			if (!reg_ok(&cur, REG_FP) || fp == 0) {
				*end = ARCH_FP_ZERO_IS_OUTERMOST && reg_ok(&cur, REG_FP) && in_elf(u, cur.r[REG_PC])
					       ? UNWIND_COMPLETE : UNWIND_FP_END;
				break;
			}
			if ((fp & 7) || fp < cur.r[REG_SP] || !in_bounds(bounds, fp) ||
			    !mem_read(mem, fp, saved, sizeof(saved))) {
				*end = UNWIND_BROKEN;
				break;
			}
			memset(&next, 0, sizeof(next));
			next.pac_mask = cur.pac_mask;
			reg_set(&next, REG_FP, saved[0]);
			reg_set(&next, REG_PC, reg_strip_pac(&cur, saved[1]));
			unwind_fp_caller(&next, fp, mem, native_at, u);
			if (ARCH_FP_AT_FRAME_RECORD && !caller_returns_to_code(u, &next, mem))
				caller_sp_from_record(u, &next, fp);
			how = FRAME_FP;
			if (saved[1] == 0) {
				*end = UNWIND_FP_END;
				break;
			}
		} else {
			*end = UNWIND_BROKEN;
			break;
		}
		/* the stack must unwind toward its base; a signal frame may jump elsewhere, and on a
		 * machine with a link register a leaf function at the top of the stack (libc's
		 * syscall(), which Atomics.wait sleeps in) returns to it with sp as it found it */
		bool leaf = REG_LR >= 0 && exact && (r == CFI_OK || how == FRAME_LINK) &&
			    next.r[REG_SP] == cur.r[REG_SP] && next.r[REG_PC] != cur.r[REG_PC];
		if (!signal && !leaf && next.r[REG_SP] <= cur.r[REG_SP]) {
			*end = UNWIND_BROKEN;
			break;
		}
		if (!signal && !in_bounds(bounds, next.r[REG_SP] - 1)) {
			*end = UNWIND_FP_END;
			break;
		}
		cur = next;
	}
	return n;
}
