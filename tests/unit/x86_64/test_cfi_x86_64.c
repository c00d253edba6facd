/* test_cfi.c — native unwinding by CFI on real code: this test binary unwinds its own live stack
 * (from registers captured in a known function, and from inside a signal handler through glibc's
 * signal trampoline), through the same unwinder, address space and memory source as a live target.
 * The walk runs while the captured frames are still on the stack. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../self_walk.h"


static __attribute__((noinline, noipa)) void capture_and_walk(struct walk *w)
{
	uint64_t rip, rsp, rbp;
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(rip), "=r"(rsp), "=r"(rbp));
	struct regset regs;
	memset(&regs, 0, sizeof(regs));
	reg_set(&regs, REG_PC, rip);
	reg_set(&regs, REG_SP, rsp);
	reg_set(&regs, REG_FP, rbp);
	self_walk(w, &regs);
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

Test(cfi, unwinds_own_stack_to_the_outermost_frame)
{
	static struct walk w;
	outer_fn(&w);
	cr_assert_eq(w.end, UNWIND_COMPLETE, "reached the frame whose return address is undefined");
	int a = self_walk_find(&w, "capture_and_walk"), b = self_walk_find(&w, "middle_fn"), d = self_walk_find(&w, "outer_fn");
	cr_assert(a == 0 && b == 1 && d == 2, "capture_and_walk=%d middle_fn=%d outer_fn=%d", a, b, d);
	cr_assert_eq(w.raw[1].how, FRAME_CFI);
	for (int i = 1; i < w.n; i++)
		cr_assert_gt(w.raw[i].sp, w.raw[i - 1].sp, "the stack unwinds toward its base");
	self_walk_free(&w);
}

static struct walk in_handler;

static __attribute__((noinline, noipa)) void on_signal(int sig)
{
	(void)sig;
	capture_and_walk(&in_handler);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
}

static __attribute__((noinline, noipa)) void raise_from_here(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

Test(cfi, unwinds_through_a_signal_frame)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	raise_from_here();
	struct walk *w = &in_handler;
	int h = self_walk_find(w, "on_signal"), r = self_walk_find(w, "raise_from_here");
	cr_assert(h == 1, "on_signal at %d", h);
	cr_assert(r > h, "raise_from_here (%d) found beyond the signal frame", r);
	bool resumed = false;
	for (int i = 0; i < w->n; i++)
		resumed |= w->raw[i].how == FRAME_SIGNAL_RESUME;
	cr_assert(resumed, "the interrupted state was restored from the signal frame");
	cr_assert_eq(w->end, UNWIND_COMPLETE);
	self_walk_free(w);
}

/* A function's epilogue as compilers describe it: after its pops, at its ret, the CFA is rsp + 8
 * and the saved rbp is still described at CFA - 16, below sp, where the pop left it. */
extern char epi_fn[], epi_ret[];
__asm__(".text\n"
	".type epi_fn, @function\n"
	"epi_fn:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"nop\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"epi_ret:\n"
	"ret\n"
	".cfi_endproc\n"
	".size epi_fn, .-epi_fn\n");

/* Stopped at that ret, the slot below sp is dead stack: a copy of the stack from sp on (the
 * kernel's at a stop) does not hold it, and the running thread writes over it. The caller's rbp is
 * the register's value (the pop restored it), never the slot's. */
Test(cfi, a_register_saved_below_sp_is_its_value_not_the_dead_slot)
{
	static struct walk w;
	uint64_t stk[8] = {0};
	stk[1] = 0xdeadbeef00;                     /* the dead slot: sp - 8 = CFA - 16 */
	stk[2] = (uint64_t)(uintptr_t)outer_fn + 4; /* the return address, into code with CFI */
	uint64_t rbp = (uint64_t)(uintptr_t)&stk[6];
	struct regset regs;
	memset(&regs, 0, sizeof(regs));
	reg_set(&regs, REG_PC, (uint64_t)(uintptr_t)epi_ret);
	reg_set(&regs, REG_SP, (uint64_t)(uintptr_t)&stk[2]);
	reg_set(&regs, REG_FP, rbp);
	self_walk(&w, &regs);
	__asm__ volatile("" ::: "memory");
	cr_assert_geq(w.n, 2, "the caller was found (%d frames)", w.n);
	cr_assert_eq(w.raw[1].pc, stk[2]);
	cr_assert_eq(w.raw[1].how, FRAME_CFI);
	cr_assert_eq(w.raw[1].fp, rbp, "the caller's rbp is the register's %#llx, not the dead slot's",
		     (unsigned long long)rbp);
	self_walk_free(&w);
}
