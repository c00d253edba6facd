/* test_stack_copier.c — the helper that copies a stopped thread's stack within a limit: a copy
 * made in time is the memory as it is; one past the limit keeps its buffer until it is over,
 * makes the next copy wait (busy) and never writes into what the caller owns again. The helper
 * copies from this very process (process_vm_readv of our own pid). */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../ptrace/stack_copier.h"

/* The helper, and this thread at the real-time priority the sampler holds while it copies (so
 * that the helper cannot take this thread's CPU while it waits). */
static struct stack_copier *start_or_skip(void)
{
	const char *why = NULL;
	int prio = sched_get_priority_min(SCHED_FIFO);
	struct stack_copier *k = stack_copier_start(prio, &why);
	if (!k)
		cr_skip_test("no helper: %s", why);
	struct sched_param sp = {.sched_priority = prio};
	cr_assert_eq(sched_setscheduler(0, SCHED_FIFO, &sp), 0);
	return k;
}

Test(stack_copier, copies_in_time_then_late_then_busy_until_over)
{
	struct stack_copier *k = start_or_skip();
	static char src[40000];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 7 + 3);
	char *dst = malloc(sizeof(src));
	ssize_t got = 0;
	cr_assert_eq(stack_copier_copy(k, getpid(), (uint64_t)(uintptr_t)src, dst, sizeof(src),
				       100 * 1000 * 1000, &got), COPY_OK);
	cr_assert_eq(got, (ssize_t)sizeof(src));
	cr_assert(memcmp(src, dst, sizeof(src)) == 0);
	/* an unreadable address: in time, nothing copied */
	cr_assert_eq(stack_copier_copy(k, getpid(), 8, dst, 64, 100 * 1000 * 1000, &got), COPY_OK);
	cr_assert_lt(got, 1);
	/* no time at all for 8 MiB: late (a copy seen done when the limit is checked would count as
	 * done); the buffer is the helper's now (it frees it) */
	static char big[8 << 20];
	memset(big, 5, sizeof(big));
	char *lent = malloc(sizeof(big));
	cr_assert_eq(stack_copier_copy(k, getpid(), (uint64_t)(uintptr_t)big, lent, sizeof(big), 0, &got),
		     COPY_LATE);
	/* until that copy is over the helper takes nothing new; then it does */
	enum copy_result r;
	int busy = 0;
	while ((r = stack_copier_copy(k, getpid(), (uint64_t)(uintptr_t)src, dst, 16, 100 * 1000 * 1000,
				      &got)) == COPY_BUSY)
		busy++;
	cr_assert_eq(r, COPY_OK);
	cr_assert_eq(got, 16);
	cr_assert_eq(stack_copier_stats(k)->late, 1);
	cr_assert_eq(stack_copier_stats(k)->busy, (unsigned long)busy);
	free(dst);
	stack_copier_stop(k);
}

/* Stopped while a late copy is still running: the helper ends alone and frees what it holds
 * (ASan's leak check sees it when the unit tests run under it). */
Test(stack_copier, stopped_during_a_late_copy)
{
	struct stack_copier *k = start_or_skip();
	static char src[8 << 20];
	memset(src, 1, sizeof(src));
	char *lent = malloc(sizeof(src));
	ssize_t got;
	stack_copier_copy(k, getpid(), (uint64_t)(uintptr_t)src, lent, sizeof(src), 0, &got);
	stack_copier_stop(k);
	usleep(20000); /* let it end before the process does */
}
