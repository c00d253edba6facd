/* test_run_ring.c — a thread's run state from its context-switch records (ptrace/run_ring.c): the
 * decoder over hand-laid rings (switched in, out preempted, out to wait, moved or not since the
 * last look, no record yet, what is not a switch record), and on a real child process the looks
 * follow what it does: running while it spins, asleep once it blocks in a read, unswitched while
 * it stays there, asleep-after-running once a write woke it and it blocked again. The live test
 * needs perf events on another process (root, or CAP_PERFMON and ptrace access): without them it
 * says so and is skipped. */
#include <criterion/criterion.h>
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../ptrace/run_ring.h"
#include "arch_defs.h"

enum { RING = 64 };

/* A switch record with these misc flags at pos of an 8-record ring. */
static void lay(uint8_t *ring, uint64_t pos, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = sizeof(h)};
	memcpy(ring + (pos & (RING - 1)), &h, sizeof(h));
}

Test(run_ring, the_newest_record_says_whether_it_runs)
{
	uint8_t ring[RING] = {0};
	uint64_t head = (uint64_t)-16; /* two records written, backwards from 0 */
	lay(ring, head + 8, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
	lay(ring, head, PERF_RECORD_SWITCH, 0);
	cr_assert_eq(run_ring_decode(ring, RING, head, 0, false), RUN_ON_CPU);
	lay(ring, head, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	cr_assert_eq(run_ring_decode(ring, RING, head, head, true), RUN_PREEMPTED,
		     "switched out still runnable is running, moved or not");
	lay(ring, head, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
	cr_assert_eq(run_ring_decode(ring, RING, head, 0, false), RUN_ASLEEP_MOVED, "no last look");
	cr_assert_eq(run_ring_decode(ring, RING, head, head + 8, true), RUN_ASLEEP_MOVED);
	cr_assert_eq(run_ring_decode(ring, RING, head, head, true), RUN_UNSWITCHED);
}

Test(run_ring, a_ring_without_records)
{
	uint8_t ring[RING] = {0};
	cr_assert_eq(run_ring_decode(ring, RING, 0, 0, false), RUN_UNKNOWN, "first look: nothing known");
	cr_assert_eq(run_ring_decode(ring, RING, 0, 0, true), RUN_UNSWITCHED,
		     "not switched since the ring opened: as at the last look");
}

Test(run_ring, what_is_not_a_switch_record_is_not_read_as_one)
{
	uint8_t ring[RING] = {0};
	uint64_t head = (uint64_t)-8;
	lay(ring, head, PERF_RECORD_LOST, 0);
	cr_assert_eq(run_ring_decode(ring, RING, head, head, true), RUN_UNKNOWN);
	struct perf_event_header h = {.type = PERF_RECORD_SWITCH, .misc = 0, .size = 4};
	memcpy(ring + (head & (RING - 1)), &h, sizeof(h));
	cr_assert_eq(run_ring_decode(ring, RING, head, head, true), RUN_UNKNOWN, "a size below a header's");
	lay(ring, head, PERF_RECORD_SWITCH, 0);
	cr_assert_eq(run_ring_decode(ring, RING, head - 3, 0, false), RUN_UNKNOWN,
		     "a head no record could end at (unaligned, past the end)");
	cr_assert_eq(run_ring_decode(ring, RING - 8, head, 0, false), RUN_UNKNOWN, "not a power of two");
	cr_assert_eq(run_ring_decode(ring, 4, head, 0, false), RUN_UNKNOWN, "smaller than a header");
}

/* ---- a real child: spins, then waits in a read, then is woken ---- */

static void spin_ms(int ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* The child: spins with a short sleep every 5 ms (so that it is switched), until the first byte
 * comes; then waits for bytes, spinning 20 ms after each. */
static void child(int go, int wake)
{
	/* gone with the test, should an assertion end it first (it would spin on, holding the
	 * runner's output) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	char c;
	for (;;) {
		spin_ms(5);
		sleep_ms(1);
		ssize_t n = read(go, &c, 1);
		if (n == 1)
			break;
		if (n == 0) /* the test's end of the pipe is closed */
			_exit(0);
	}
	for (;;) {
		if (read(wake, &c, 1) != 1)
			_exit(0);
		spin_ms(20);
	}
}

/* Look until a look says it does not run (a loaded machine may run it late), at most for 2 s. */
static enum run_look look_till_asleep(struct run_ring *r)
{
	enum run_look l = run_ring_look(r);
	for (int i = 0; i < 2000 && (l == RUN_ON_CPU || l == RUN_PREEMPTED); i++) {
		sleep_ms(1);
		l = run_ring_look(r);
	}
	return l;
}

Test(run_ring, a_real_threads_looks_follow_what_it_does)
{
	int go[2], wake[2];
	cr_assert(pipe(go) == 0 && pipe(wake) == 0);
	cr_assert(fcntl(go[0], F_SETFL, O_NONBLOCK) == 0, "the child polls for its first byte");
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		child(go[0], wake[0]);
	struct run_ring r;
	int err = run_ring_open(&r, pid, INT_MAX);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		cr_skip_test("perf events on another process are not allowed here: %s", strerror(-err));
	}
	/* spinning: switched in most of the time; a look taken in its 1 ms sleeps says asleep */
	int running = 0;
	for (int i = 0; i < 50; i++) {
		enum run_look l = run_ring_look(&r);
		running += l == RUN_ON_CPU || l == RUN_PREEMPTED;
		sleep_ms(2);
	}
	cr_assert_gt(running, 25, "spinning, it was seen running at %d of 50 looks", running);
	/* blocked in read: asleep, then unswitched while it stays there */
	cr_assert(write(go[1], "g", 1) == 1);
	sleep_ms(50);
	enum run_look l = look_till_asleep(&r);
	cr_assert(l == RUN_ASLEEP_MOVED || l == RUN_UNSWITCHED, "blocked: %d", l);
	for (int i = 0; i < 5; i++) {
		sleep_ms(5);
		cr_assert_eq(run_ring_look(&r), RUN_UNSWITCHED, "still blocked, look %d", i);
	}
	/* woken, it runs 20 ms and blocks again: asleep after running since the last look */
	cr_assert(write(wake[1], "w", 1) == 1);
	sleep_ms(100);
	cr_assert_eq(look_till_asleep(&r), RUN_ASLEEP_MOVED);
	cr_assert_eq(run_ring_look(&r), RUN_UNSWITCHED);
	run_ring_close(&r);
	cr_assert_eq(r.fd, -1);
	cr_assert_eq(run_ring_look(&r), RUN_UNKNOWN, "a closed ring knows nothing");
	close(wake[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(run_ring, opened_only_from_the_machines_first_safe_kernel)
{
	const int v61 = 6 << 16 | 1 << 8;
	/* arm64: not before 6.2 (Debian 12's 6.1 locked up closing them); x86-64: any */
	cr_assert_eq(run_rings_allowed("6.1.0-56-arm64"), ARCH_THREAD_PERF_EVENTS_FROM <= v61);
	cr_assert_eq(run_rings_allowed("5.10.0-30-arm64"), ARCH_THREAD_PERF_EVENTS_FROM <= (5 << 16 | 10 << 8));
	cr_assert(run_rings_allowed("6.2.0"));
	cr_assert(run_rings_allowed("6.12.57+deb13-arm64"));
	cr_assert(run_rings_allowed("6.18.0"));
	/* a release that does not read as MAJOR.MINOR counts as new */
	cr_assert(run_rings_allowed("garbage"));
	cr_assert(run_rings_allowed(""));
	cr_assert(run_rings_allowed(NULL));
	cr_assert(run_rings_allowed("999.1"));
}
