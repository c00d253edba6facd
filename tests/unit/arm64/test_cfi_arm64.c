/* test_cfi_arm64.c — native unwinding by CFI on real aarch64 code signed with pointer
 * authentication: this file is built with -mbranch-protection=standard (GNUmakefile), so its
 * functions sign the return address they save (paciasp) and their CFI toggles the return-address
 * state (DW_CFA_AARCH64_negate_ra_state). The test binary unwinds its own live stack through the
 * same unwinder, address space and memory source as a live target; every saved return address
 * must come back with its authentication code cleared, and the walk must reach the outermost
 * frame. On a machine with PAC (/proc/cpuinfo's paca: the emulated machine of make check-arm64)
 * the saved return address is checked to carry a code, so that the test proves the stripping. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../self_walk.h"


/* walks from a point of this thread described by its pc, sp, fp and lr */
static void walk_from(struct walk *w, uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr)
{
	struct regset regs;
	memset(&regs, 0, sizeof(regs));
	regs.pac_mask = regset_pac_mask_default();
	reg_set(&regs, REG_PC, pc);
	reg_set(&regs, REG_SP, sp);
	reg_set(&regs, REG_FP, fp);
	reg_set(&regs, REG_LR, lr);
	self_walk(w, &regs);
}

/* Does this CPU authenticate pointers (the kernel enabled PAC for user space)? */
static bool cpu_has_pac(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	bool yes = false;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "Features", 8) == 0 && strstr(line, " paca"))
			yes = true;
	if (f)
		fclose(f);
	return yes;
}

static uint64_t saved_lr; /* capture_and_walk's return address as its frame record holds it */

static __attribute__((noinline, noipa)) void capture_and_walk(struct walk *w)
{
	uint64_t pc, sp, fp, lr;
	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
			 : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(lr));
	memcpy(&saved_lr, (const void *)(uintptr_t)(fp + 8), sizeof(saved_lr));
	walk_from(w, pc, sp, fp, lr);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline, noipa)) void middle_fn(struct walk *w)
{
	capture_and_walk(w);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline, noipa)) void outer_fn(struct walk *w)
{
	middle_fn(w);
	__asm__ volatile("" ::: "memory");
}

Test(cfi_arm64, unwinds_own_signed_stack_to_the_outermost_frame)
{
	static struct walk w;
	outer_fn(&w);
	if (cpu_has_pac())
		cr_assert_neq(saved_lr & regset_pac_mask_default(), 0,
			      "the saved return address %#llx carries an authentication code",
			      (unsigned long long)saved_lr);
	cr_assert_eq(w.end, UNWIND_COMPLETE, "reached the outermost frame");
	int a = self_walk_find(&w, "capture_and_walk"), b = self_walk_find(&w, "middle_fn"), d = self_walk_find(&w, "outer_fn");
	cr_assert(a == 0 && b == 1 && d == 2, "capture_and_walk=%d middle_fn=%d outer_fn=%d", a, b, d);
	cr_assert_eq(w.raw[1].how, FRAME_CFI);
	for (int i = 1; i < w.n; i++) {
		cr_assert_eq(w.raw[i].pc & regset_pac_mask_default(), 0, "frame %d's pc is an address", i);
		cr_assert_gt(w.raw[i].sp, w.raw[i - 1].sp, "the stack unwinds toward its base");
	}
	self_walk_free(&w);
}

/* A leaf function records its own pc, sp, fp and lr: no frame of its own, sp untouched, its
 * return address in lr. LEAF_CAPTURE(name, cfi_start, cfi_end) defines one, with CFI (the CIE's:
 * CFA = sp, x30 the same value) or without. Global (hidden): the tests take their addresses, and
 * the linker gives the GOT entries of two local symbols of one section the same address. */
struct leaf_regs {
	uint64_t pc, sp, fp, lr;
};
#define LEAF_CAPTURE(name, cfi_start, cfi_end)                                                     \
	__asm__(".text\n"                                                                          \
		".globl " name "\n.hidden " name "\n.type " name ", %function\n" name ":\n" cfi_start "\thint 34\n" /* bti c */          \
		"\tadr x1, .\n"                                                                    \
		"\tstr x1, [x0]\n"                                                                 \
		"\tmov x1, sp\n"                                                                   \
		"\tstr x1, [x0, #8]\n"                                                             \
		"\tstr x29, [x0, #16]\n"                                                           \
		"\tstr x30, [x0, #24]\n"                                                           \
		"\tret\n" cfi_end ".size " name ", .-" name "\n")

/* as libc's syscall() is one (Atomics.wait sleeps in it from Node 24 on) */
void v8w_test_leaf_capture(struct leaf_regs *out);
LEAF_CAPTURE("v8w_test_leaf_capture", "\t.cfi_startproc\n", "\t.cfi_endproc\n");
/* as OpenSSL's sha512_block_armv8 is one (pbkdf2 spends its time in it): no unwind tables; the
 * frame record at fp is its caller's, whose own return address a frame-pointer step would take,
 * skipping the caller */
void v8w_test_leaf_capture_nocfi(struct leaf_regs *out);
LEAF_CAPTURE("v8w_test_leaf_capture_nocfi", "", "");

/* as sha512_block_armv8 stopped inside its prologue (Debian's libcrypto): its frame record pushed,
 * fp not yet pointed at it, lr still the return address; sp 16 below its caller's. It calls
 * then(out) from there (x30 is saved), so that the walk reads the pushed pair while it is on the
 * stack. */
void v8w_test_prologue_capture(struct leaf_regs *out, void (*then)(struct leaf_regs *));
__asm__(".text\n.globl v8w_test_prologue_capture\n.hidden v8w_test_prologue_capture\n"
	".type v8w_test_prologue_capture, %function\nv8w_test_prologue_capture:\n"
	"\thint 34\n" /* bti c */
	"\tstp x29, x30, [sp, #-16]!\n"
	"\tadr x2, .\n"
	"\tstr x2, [x0]\n"
	"\tmov x2, sp\n"
	"\tstr x2, [x0, #8]\n"
	"\tstr x29, [x0, #16]\n"
	"\tstr x30, [x0, #24]\n"
	"\tblr x1\n"
	"\tldp x29, x30, [sp], #16\n"
	"\tret\n"
	".size v8w_test_prologue_capture, .-v8w_test_prologue_capture\n");

/* walks from inside the leaf `capture`: its caller's frame is the same until it returns */
static __attribute__((noinline, noipa)) void leaf_caller(struct walk *w, void (*capture)(struct leaf_regs *))
{
	struct leaf_regs at;
	capture(&at);
	walk_from(w, at.pc, at.sp, at.fp, at.lr);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline, noipa)) void leaf_outer(struct walk *w, void (*capture)(struct leaf_regs *))
{
	leaf_caller(w, capture);
	__asm__ volatile("" ::: "memory");
}

/* the walk from `leaf`: it, its caller (found `how`) at the leaf's sp + `pushed`, its caller's
 * caller (by CFI) */
static void check_leaf_walk(struct walk *w, const char *leaf, enum frame_how how, uint64_t pushed)
{
	cr_assert_eq(w->end, UNWIND_COMPLETE, "reached the outermost frame (%d frames)", w->n);
	int a = self_walk_find(w, leaf), b = self_walk_find(w, "leaf_caller"), c = self_walk_find(w, "leaf_outer");
	cr_assert(a == 0 && b == 1 && c == 2, "%s=%d leaf_caller=%d leaf_outer=%d", leaf, a, b, c);
	cr_assert_eq(w->raw[1].how, how);
	cr_assert_eq(w->raw[1].sp, w->raw[0].sp + pushed, "the caller's sp");
	cr_assert_eq(w->raw[2].how, FRAME_CFI);
	for (int i = 2; i < w->n; i++)
		cr_assert_gt(w->raw[i].sp, w->raw[i - 1].sp, "the stack unwinds toward its base");
}

Test(cfi_arm64, a_leaf_at_the_top_returns_to_lr_with_the_same_sp)
{
	static struct walk w;
	leaf_outer(&w, v8w_test_leaf_capture);
	check_leaf_walk(&w, "v8w_test_leaf_capture", FRAME_CFI, 0);
	self_walk_free(&w);
}

Test(cfi_arm64, a_leaf_without_cfi_at_the_top_returns_to_lr)
{
	static struct walk w;
	leaf_outer(&w, v8w_test_leaf_capture_nocfi);
	check_leaf_walk(&w, "v8w_test_leaf_capture_nocfi", FRAME_LINK, 0);
	self_walk_free(&w);
}

/* V8's PushAllRegistersAndIterateStack (src/heap/base/asm/arm64/push_registers_asm.cc), which a
 * main thread passes through in every collection (Heap::CollectGarbage): no CFI, and x19-x28
 * pushed before its frame record, so its caller's sp is 96 bytes above its fp, not 16. This one
 * calls fn(arg) as V8's calls its callback. */
void v8w_test_push_all(void *arg, void (*fn)(void *));
__asm__(".text\n"
	".type v8w_test_push_all, %function\n"
	"v8w_test_push_all:\n"
	"\thint 34\n" /* bti c */
	"\tstp x19, x20, [sp, #-16]!\n"
	"\tstp x21, x22, [sp, #-16]!\n"
	"\tstp x23, x24, [sp, #-16]!\n"
	"\tstp x25, x26, [sp, #-16]!\n"
	"\tstp x27, x28, [sp, #-16]!\n"
	"\tstp x29, x30, [sp, #-16]!\n"
	"\tmov x29, sp\n"
	"\tblr x1\n"
	"\tldp x29, x30, [sp], #16\n"
	"\tadd sp, sp, #80\n"
	"\tret\n"
	"\t.size v8w_test_push_all, .-v8w_test_push_all\n");

static __attribute__((noinline, noipa)) void push_all_callback(void *w)
{
	capture_and_walk(w);
	__asm__ volatile("" ::: "memory");
}

/* its CFI defines the CFA from sp (GCC's way on aarch64): a wrong sp reads a wrong return address */
static __attribute__((noinline, noipa)) void push_all_caller(struct walk *w)
{
	volatile char pad[64];
	pad[0] = 1;
	v8w_test_push_all(w, push_all_callback);
	__asm__ volatile("" ::"r"(pad) : "memory");
}

static __attribute__((noinline, noipa)) void push_all_outer(struct walk *w)
{
	push_all_caller(w);
	__asm__ volatile("" ::: "memory");
}

Test(cfi_arm64, a_function_without_cfi_that_pushes_above_its_frame_record)
{
	static struct walk w;
	push_all_outer(&w);
	cr_assert_eq(w.end, UNWIND_COMPLETE, "reached the outermost frame (%d frames)", w.n);
	int p = self_walk_find(&w, "v8w_test_push_all"), c = self_walk_find(&w, "push_all_caller"),
	    o = self_walk_find(&w, "push_all_outer");
	cr_assert(p == 2 && c == 3 && o == 4, "v8w_test_push_all=%d push_all_caller=%d push_all_outer=%d", p, c, o);
	cr_assert_eq(w.raw[3].how, FRAME_FP, "the caller is found by the frame pointer");
	cr_assert_eq(w.raw[3].sp, w.raw[2].fp + 96, "the caller's sp is above the 80 bytes pushed before the record");
	cr_assert_eq(w.raw[4].how, FRAME_CFI);
	self_walk_free(&w);
}

/* the walk a test runs from inside its leaf (the leaf's frame still on the stack): its walk, and the
 * callback the leaf calls with what it captured */
static struct walk *inner_walk;

static void walk_inside(struct leaf_regs *at)
{
	walk_from(inner_walk, at->pc, at->sp, at->fp, at->lr);
}

/* that walk, run by calling `run`: the leaf, its caller found by the link register at the leaf's
 * sp + `pushed`, the caller's caller by CFI, to the outermost frame */
static void check_inner_walk(void (*run)(void), const char *leaf, const char *caller, const char *outer,
			     uint64_t pushed)
{
	static struct walk walk;
	struct walk *w = inner_walk = &walk;
	run();
	int a = self_walk_find(w, leaf), b = self_walk_find(w, caller), c = self_walk_find(w, outer);
	cr_assert(a == 0 && b == 1 && c == 2, "%s=%d %s=%d %s=%d (%d frames)", leaf, a, caller, b, outer, c, w->n);
	cr_assert_eq(w->raw[1].how, FRAME_LINK);
	cr_assert_eq(w->raw[1].sp, w->raw[0].sp + pushed, "the caller's sp");
	cr_assert_eq(w->raw[2].how, FRAME_CFI);
	cr_assert_eq(w->end, UNWIND_COMPLETE, "reached the outermost frame (%d frames)", w->n);
	self_walk_free(w);
}

static __attribute__((noinline, noipa)) void prologue_caller(void)
{
	struct leaf_regs at;
	v8w_test_prologue_capture(&at, walk_inside);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline, noipa)) void prologue_outer(void)
{
	prologue_caller();
	__asm__ volatile("" ::: "memory");
}

Test(cfi_arm64, a_function_without_cfi_inside_its_prologue_returns_to_lr_above_its_record)
{
	check_inner_walk(prologue_outer, "v8w_test_prologue_capture", "prologue_caller", "prologue_outer", 16);
}

/* as Debian's SHA512_Final is (built without frame pointers): it saves x29 and x30 side by side,
 * its CFA from sp, but leaves x29 its caller's; it calls the leaf `capture`, then `then` with what
 * the leaf captured, its own frame still live */
void v8w_test_nofp_caller(struct leaf_regs *regs, void (*capture)(struct leaf_regs *),
			  void (*then)(struct leaf_regs *));
__asm__(".text\n.globl v8w_test_nofp_caller\n.hidden v8w_test_nofp_caller\n"
	".type v8w_test_nofp_caller, %function\nv8w_test_nofp_caller:\n"
	"\t.cfi_startproc\n"
	"\thint 34\n" /* bti c */
	"\tstp x29, x30, [sp, #-32]!\n"
	"\t.cfi_def_cfa_offset 32\n"
	"\t.cfi_offset 29, -32\n"
	"\t.cfi_offset 30, -24\n"
	"\tstp x19, x20, [sp, #16]\n"
	"\t.cfi_offset 19, -16\n"
	"\t.cfi_offset 20, -8\n"
	"\tmov x19, x0\n"
	"\tmov x20, x2\n"
	"\tblr x1\n"
	"\tmov x0, x19\n"
	"\tblr x20\n"
	"\tldp x19, x20, [sp, #16]\n"
	"\tldp x29, x30, [sp], #32\n"
	"\t.cfi_def_cfa_offset 0\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	".size v8w_test_nofp_caller, .-v8w_test_nofp_caller\n");

static __attribute__((noinline, noipa)) void nofp_outer(void)
{
	struct leaf_regs at;
	v8w_test_nofp_caller(&at, v8w_test_leaf_capture_nocfi, walk_inside);
	__asm__ volatile("" ::: "memory");
}

/* x29 is not the caller's record: its sp is the leaf's */
Test(cfi_arm64, a_leaf_without_cfi_under_a_caller_without_frame_pointer_returns_at_the_same_sp)
{
	check_inner_walk(nofp_outer, "v8w_test_leaf_capture_nocfi", "v8w_test_nofp_caller", "nofp_outer", 0);
}
