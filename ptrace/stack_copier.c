/* stack_copier.c — the helper thread that copies a stopped thread's stack (see stack_copier.h). */
#include "stack_copier.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/xalloc.h"

enum { YIELD_AFTER_NS = 10 * 1000 }; /* the tracer waits spinning, then yields its CPU (one CPU
					* for both threads: the helper runs when it yields) */

struct stack_copier {
	pthread_t thread;
	int fifo_priority;
	_Atomic uint32_t wake;     /* futex word: bumped to wake the helper (a job, the end) */
	_Atomic uint32_t sleeping; /* the helper waits on wake: bump and wake it */
	_Atomic uint32_t posted, done; /* job numbers: asked of the helper, finished by it */
	_Atomic bool quit, orphaned;
	_Atomic uint32_t started; /* futex word: 1 the helper runs at SCHED_FIFO, 2 it could not */
	/* the job, written before posted is bumped */
	pid_t pid;
	uint64_t addr;
	size_t len;
	void *dst;
	_Atomic ssize_t got;
	/* set by whichever side is second to let go of the job: the helper once its copy is done,
	 * the tracer when the limit passes; the helper frees a buffer the tracer let go of first */
	_Atomic uint32_t let_go;
	struct stack_copier_stats st;
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void futex_wait(_Atomic uint32_t *w, uint32_t v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void run_job(struct stack_copier *k, uint32_t job)
{
	struct iovec local = {k->dst, k->len};
	struct iovec remote = {(void *)(uintptr_t)k->addr, k->len};
	ssize_t n = process_vm_readv(k->pid, &local, 1, &remote, 1, 0);
	atomic_store(&k->got, n);
	if (atomic_exchange(&k->let_go, 1)) /* late: the tracer gave its buffer up */
		free(k->dst);
	atomic_store(&k->done, job);
}

/* Is there anything for the helper: a job or the end? */
static bool called(struct stack_copier *k)
{
	return atomic_load(&k->posted) != atomic_load(&k->done) || atomic_load(&k->quit);
}

static void *helper_main(void *arg)
{
	struct stack_copier *k = arg;
	for (;;) {
		uint32_t w = atomic_load(&k->wake);
		if (atomic_load(&k->quit))
			break;
		uint32_t job = atomic_load(&k->posted);
		if (job != atomic_load(&k->done)) {
			run_job(k, job);
			continue;
		}
		atomic_store(&k->sleeping, 1);
		if (!called(k))
			futex_wait(&k->wake, w);
		atomic_store(&k->sleeping, 0);
	}
	/* a late job the end came before: never run, its buffer given up by the tracer */
	if (atomic_load(&k->posted) != atomic_load(&k->done) && atomic_exchange(&k->let_go, 1))
		free(k->dst);
	if (atomic_load(&k->orphaned)) /* stack_copier_stop left it to us */
		free(k);
	return NULL;
}

static void *start_fifo(void *arg)
{
	struct stack_copier *k = arg;
	struct sched_param sp = {.sched_priority = k->fifo_priority};
	bool fifo = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
	atomic_store(&k->started, fifo ? 1 : 2);
	futex_wake(&k->started);
	return fifo ? helper_main(k) : NULL;
}

struct stack_copier *stack_copier_start(int fifo_priority, const char **why)
{
	cpu_set_t cpus;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) < 2) {
		*why = "one CPU: its helper would wait for the very thread that waits for it";
		return NULL;
	}
	struct stack_copier *k = xcalloc(1, sizeof(*k));
	k->fifo_priority = fifo_priority;
	if (pthread_create(&k->thread, NULL, start_fifo, k) != 0) {
		*why = "no thread could be made for it";
		free(k);
		return NULL;
	}
	/* the thread makes itself real-time (and says whether it could) */
	uint32_t st;
	while ((st = atomic_load(&k->started)) == 0)
		futex_wait(&k->started, 0);
	if (st != 1) {
		pthread_join(k->thread, NULL);
		*why = "no real-time priority for its helper (needs root or CAP_SYS_NICE)";
		free(k);
		return NULL;
	}
	return k;
}

void stack_copier_stop(struct stack_copier *k)
{
	if (!k)
		return;
	atomic_store(&k->quit, true);
	atomic_fetch_add(&k->wake, 1);
	futex_wake(&k->wake);
	if (atomic_load(&k->posted) != atomic_load(&k->done)) {
		/* a late copy still waits for the target's lock: the helper frees all when it ends */
		atomic_store(&k->orphaned, true);
		pthread_detach(k->thread);
		return;
	}
	pthread_join(k->thread, NULL);
	free(k);
}

enum copy_result stack_copier_copy(struct stack_copier *k, pid_t pid, uint64_t addr, void *dst,
				   size_t len, uint64_t limit_ns, ssize_t *got)
{
	uint32_t job = atomic_load(&k->posted);
	if (job != atomic_load(&k->done)) {
		k->st.busy++;
		return COPY_BUSY;
	}
	uint64_t deadline = now_ns() + limit_ns;
	k->pid = pid;
	k->addr = addr;
	k->len = len;
	k->dst = dst;
	atomic_store(&k->let_go, 0);
	atomic_store(&k->posted, job + 1);
	if (atomic_load(&k->sleeping)) {
		atomic_fetch_add(&k->wake, 1);
		futex_wake(&k->wake);
		k->st.wakes++;
	}
	uint64_t yield_from = deadline - limit_ns + YIELD_AFTER_NS;
	while (atomic_load(&k->done) != job + 1) {
		uint64_t t = now_ns();
		if (t > deadline) {
			if (atomic_exchange(&k->let_go, 1)) { /* the copy has just been done */
				while (atomic_load(&k->done) != job + 1)
					cpu_relax();
				break;
			}
			/* nothing is freed or allocated here, in the stop: the helper frees the
			 * buffer when its copy is done, and the caller's replacement is made once
			 * the thread runs again */
			k->st.late++;
			if (t - deadline > STACK_COPIER_SLOW_NS) {
				k->st.noticed_late++;
				if (t - deadline > k->st.noticed_late_max_ns)
					k->st.noticed_late_max_ns = t - deadline;
			}
			return COPY_LATE;
		}
		if (t > yield_from)
			sched_yield();
		else
			cpu_relax();
	}
	k->st.copies++;
	/* done, but seen past the limit: the tracer did not run when it passed (it had yielded its
	 * CPU to the helper, which then copied, or something else held it) */
	uint64_t t = now_ns();
	if (t > deadline + STACK_COPIER_SLOW_NS) {
		k->st.noticed_late++;
		if (t - deadline > k->st.noticed_late_max_ns)
			k->st.noticed_late_max_ns = t - deadline;
	}
	*got = atomic_load(&k->got);
	return COPY_OK;
}

const struct stack_copier_stats *stack_copier_stats(const struct stack_copier *k)
{
	return &k->st;
}
