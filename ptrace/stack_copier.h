/* stack_copier.h — the stack copy of a stopped thread made on a second thread, so that the stop can
 * end at a deadline. process_vm_readv takes the target's memory-map lock for reading; while the
 * target's own threads map or unmap (V8's workers free pages after a GC, holding the lock for
 * writing for milliseconds), the copy waits for it, and so would the stopped thread. Only the
 * tracer thread may resume a tracee, so the copy goes to this helper: the tracer waits for it up
 * to the limit, and past it resumes the thread and drops the sample; the helper finishes its copy
 * whenever the lock is free, into a buffer it keeps until then.
 *
 * The helper sleeps until it is given a copy: the hand-off, a futex wake of a SCHED_FIFO thread,
 * adds 13–19 µs to a stop on this VM (p99 30–60 µs), and v8walk's CPU ~1 % at 99 Hz (measured on
 * the tsc workload: main-thread pause median 34 µs against 18–20 µs inline, max 1.01 ms against
 * 3.1–6.2 ms, CPU 7.2 % against 5.9–6.5 %). A helper spinning for the tick's stops made the
 * hand-off nearly free but cost 3–4 % of a CPU at 99 Hz (it spins through every tick): not kept.
 * Hence a limit the user asks for (--stop-limit-us), not the default. Without the real-time
 * priority the helper could be made to wait for a CPU as long as the lock, and on one CPU it
 * would wait for the tracer that waits for it: then there is no helper, and the caller copies
 * inline (stack_copier_start says why). */
#ifndef V8WALK_STACK_COPIER_H
#define V8WALK_STACK_COPIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum copy_result {
	COPY_OK,        /* copied (got may be short: the stack's end, or nothing readable) */
	COPY_LATE,      /* the limit passed: the buffer now belongs to the copier */
	COPY_BUSY,      /* an earlier late copy still waits for the lock: nothing asked */
};

struct stack_copier_stats {
	unsigned long copies, late, busy, wakes; /* wakes: hand-offs to a sleeping helper */
	/* copies (late or done) whose limit the tracer saw more than STACK_COPIER_SLOW_NS after it
	 * passed: the tracer itself did not run then (it had yielded its CPU to the helper, which
	 * copied on it; another task's kernel work without a preemption point; the hypervisor
	 * running another machine on its CPU), and the stop lasted that much longer */
	unsigned long noticed_late;
	uint64_t noticed_late_max_ns;
};
enum { STACK_COPIER_SLOW_NS = 100 * 1000 };

struct stack_copier;

/* A helper thread at SCHED_FIFO priority fifo_priority; NULL (and why) when it cannot run there. */
struct stack_copier *stack_copier_start(int fifo_priority, const char **why);
/* Stop the helper (left to finish alone when a late copy still holds it) and free it. */
void stack_copier_stop(struct stack_copier *k);
/* Copy [addr, addr+len) of pid into dst, waiting at most limit_ns. On COPY_LATE dst belongs to
 * the copier (it frees it once its copy is over): the caller must not touch it again. */
enum copy_result stack_copier_copy(struct stack_copier *k, pid_t pid, uint64_t addr, void *dst,
				   size_t len, uint64_t limit_ns, ssize_t *got);
const struct stack_copier_stats *stack_copier_stats(const struct stack_copier *k);

#endif
