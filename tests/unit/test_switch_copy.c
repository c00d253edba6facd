/* test_switch_copy.c — the registers and stack the kernel copies as a thread switches out into its
 * ptrace stop: the record decoder takes only records whose sizes add up (switch_record.c), and on
 * a real child process the copy is byte for byte what process_vm_readv reads from the stopped
 * thread, its registers those ptrace gives; the record taken is the stop's, not one of
 * a switch between the arming and the stop, and a shut ring records nothing. The live tests need ptrace and perf events (root, or CAP_PERFMON and CAP_SYS_PTRACE):
 * without them they say so and are skipped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../ptrace/switch_copy.h"
#include "../../util/clock.h"

/* ---- the decoder, over hand-made records ---- */

struct rec {
	uint8_t b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

/* A sample record of switch_copy's layout: stack_size bytes of which dyn were copied. */
static void sample_record(struct rec *r, uint64_t abi, uint64_t stack_size, uint64_t dyn)
{
	memset(r, 0, sizeof(*r));
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE};
	put(r, &h, sizeof(h));
	put64(r, (uint64_t)4242 << 32 | 4240); /* pid 4240, tid 4242 */
	put64(r, 123456789);
	put64(r, abi);
	if (abi) /* perf's order (arch_defs.h); the last not known (all ones) */
		for (uint64_t i = 0; i < SWITCH_NREGS; i++)
			put64(r, i == SWITCH_NREGS - 1 ? UINT64_MAX : 0x100 + i);
	put64(r, stack_size);
	for (uint64_t i = 0; i < stack_size; i++)
		r->b[r->n++] = (uint8_t)(i + 1);
	if (stack_size)
		put64(r, dyn);
	struct perf_event_header *hp = (void *)r->b;
	hp->size = (uint16_t)r->n;
}

Test(switch_record, a_sample_is_decoded_with_its_copied_bytes)
{
	struct rec r;
	sample_record(&r, PERF_SAMPLE_REGS_ABI_64, 64, 40);
	struct switch_record s;
	cr_assert_eq(switch_record_decode(r.b, r.n, &s), SWITCH_RECORD_SAMPLE);
	cr_assert_eq(s.pid, 4240);
	cr_assert_eq(s.tid, 4242);
	cr_assert_eq(s.time_ns, 123456789);
	cr_assert(s.has_regs);
	/* the registers in the record's order, as the machine's conversion reads them (its order:
	 * tests/unit/$(ARCH)/test_regs_*.c) */
	uint64_t vals[SWITCH_NREGS];
	for (int i = 0; i < SWITCH_NREGS; i++)
		vals[i] = i == SWITCH_NREGS - 1 ? UINT64_MAX : 0x100 + (uint64_t)i;
	struct regset want;
	regset_from_perf(&want, vals);
	cr_assert_eq(s.regs.valid, want.valid);
	cr_assert_neq(want.valid, 0);
	cr_assert(memcmp(s.regs.r, want.r, sizeof(want.r)) == 0);
	cr_assert_eq(s.stack_len, 40, "only the bytes the kernel could copy (dyn_size)");
	cr_assert_eq(s.stack[0], 1);
	cr_assert_eq(s.stack[39], 40);
}

Test(switch_record, no_registers_and_no_stack)
{
	struct rec r;
	sample_record(&r, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	struct switch_record s;
	cr_assert_eq(switch_record_decode(r.b, r.n, &s), SWITCH_RECORD_SAMPLE);
	cr_assert_not(s.has_regs);
	cr_assert_eq(s.stack_len, 0);
	cr_assert_null(s.stack);
}

Test(switch_record, sizes_that_do_not_add_up_are_refused)
{
	struct rec r;
	struct switch_record s;
	/* more copied than the record holds */
	sample_record(&r, PERF_SAMPLE_REGS_ABI_64, 64, 72);
	cr_assert_eq(switch_record_decode(r.b, r.n, &s), SWITCH_RECORD_BAD);
	/* a stack size past the record's end */
	sample_record(&r, PERF_SAMPLE_REGS_ABI_64, 64, 8);
	memcpy(r.b + 8 + 8 + 8 + 8 + 8 * SWITCH_NREGS, &(uint64_t){400}, 8);
	cr_assert_eq(switch_record_decode(r.b, r.n, &s), SWITCH_RECORD_BAD);
	/* cut short: the header says more than the buffer has */
	sample_record(&r, PERF_SAMPLE_REGS_ABI_64, 64, 8);
	cr_assert_eq(switch_record_decode(r.b, r.n - 1, &s), SWITCH_RECORD_BAD);
	/* a header smaller than a header */
	struct perf_event_header tiny = {.type = PERF_RECORD_SAMPLE, .size = 4};
	cr_assert_eq(switch_record_decode((const uint8_t *)&tiny, sizeof(tiny), &s), SWITCH_RECORD_BAD);
	/* the registers cut off */
	sample_record(&r, PERF_SAMPLE_REGS_ABI_64, 0, 0);
	((struct perf_event_header *)r.b)->size = 8 + 8 + 8 + 8 + 8 * (SWITCH_NREGS - 1);
	cr_assert_eq(switch_record_decode(r.b, 8 + 8 + 8 + 8 + 8 * (SWITCH_NREGS - 1), &s), SWITCH_RECORD_BAD);
}

Test(switch_record, other_record_types_are_told_apart)
{
	struct perf_event_header lost[3] = {{.type = PERF_RECORD_LOST, .size = sizeof(lost)}};
	struct switch_record s;
	cr_assert_eq(switch_record_decode((const uint8_t *)lost, sizeof(lost), &s), SWITCH_RECORD_OTHER);
}

/* Records laid into a ring from position pos on, wrapping around its end. */
static uint64_t lay(uint8_t *ring, uint64_t size, uint64_t pos, const struct rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		ring[(pos + i) & (size - 1)] = r->b[i];
	return pos + r->n;
}

Test(switch_record, the_newest_record_of_a_backward_ring_even_wrapped)
{
	static uint8_t ring[1024];
	struct switch_ring_view v = {.data = ring, .size = sizeof(ring)};
	struct switch_record s;
	cr_assert_eq(switch_ring_newest(&v, 0, &s), SWITCH_RECORD_BAD, "nothing written yet");
	struct rec older, newest;
	sample_record(&older, PERF_SAMPLE_REGS_ABI_64, 64, 64);
	sample_record(&newest, PERF_SAMPLE_REGS_ABI_64, 64, 56);
	memcpy(newest.b + 8, &(uint64_t){(uint64_t)7 << 32 | 7}, 8); /* tid 7 */
	newest.b[8 + 8 + 8 + 8 + 8 * SWITCH_NREGS + 8] = 0xAB; /* its first stack byte */
	/* written backward: the newest below the older; data_head (going down from 0, as the
	 * kernel's) where the newest starts, which wraps around the end */
	uint64_t head = (uint64_t)0 - 1024 * 5 - 200;
	lay(ring, sizeof(ring), head + newest.n, &older);
	lay(ring, sizeof(ring), head, &newest);
	cr_assert_gt(head % 1024 + newest.n, 1024, "the newest wraps");
	cr_assert_eq(switch_ring_newest(&v, head, &s), SWITCH_RECORD_SAMPLE);
	cr_assert_eq(s.tid, 7, "the newest");
	cr_assert_eq(s.stack_len + s.more_len, 56);
	cr_assert_eq(s.stack[0], 0xAB, "its stack, in place");
	cr_assert(s.stack >= ring && s.stack < ring + sizeof(ring));
	/* in two pieces when it reaches the end: the first at the end, the rest from the start */
	uint64_t stack_at = (head + 8 + 8 + 8 + 8 + 8 * SWITCH_NREGS + 8) % 1024;
	if (stack_at + 56 > 1024) {
		cr_assert_eq(s.stack_len, 1024 - stack_at);
		cr_assert_eq(s.more, ring);
	} else {
		cr_assert_eq(s.more_len, 0);
	}
	cr_assert_eq(switch_ring_newest(&v, head + newest.n, &s), SWITCH_RECORD_SAMPLE);
	cr_assert_eq(s.tid, 4242, "the older, in one piece in the ring");
	cr_assert(s.stack >= ring && s.stack < ring + sizeof(ring));
	/* the count of dropped records the kernel writes in front of the first sample after the
	 * ring was opened: skipped */
	struct rec lost = {.n = 24};
	struct perf_event_header lh = {.type = PERF_RECORD_LOST, .size = 24};
	memcpy(lost.b, &lh, sizeof(lh));
	uint64_t at = 3 * 1024 + 100;
	lay(ring, sizeof(ring), lay(ring, sizeof(ring), at, &lost), &newest);
	cr_assert_eq(switch_ring_newest(&v, at, &s), SWITCH_RECORD_SAMPLE);
	cr_assert_eq(s.tid, 7, "the sample after the count");
	/* a header claiming more than the ring holds */
	struct perf_event_header big = {.type = PERF_RECORD_SAMPLE, .size = 2048};
	memcpy(ring, &big, sizeof(big));
	cr_assert_eq(switch_ring_newest(&v, 0, &s), SWITCH_RECORD_BAD);
}

/* ---- on a real child ---- */

struct shared {
	volatile uint64_t sleeps; /* how many times the child went to sleep */
	volatile int quit;        /* never set: the child is killed */
	volatile uint64_t mark_at;   /* where on its stack the blocking child says it waits (1) or works (0) */
	volatile uint64_t woke;      /* the blocking child came back from its second wait */
};

/* Deep enough to fill a few pages of stack with frames and data, then spin: 20 ms of work, a 1 ms
 * sleep, and again. */
static __attribute__((noinline)) uint64_t descend(struct shared *sh, int depth, uint64_t acc)
{
	volatile uint8_t pad[200];
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = (uint8_t)(depth + i);
	if (depth > 0) /* pad is live across the call: each frame holds its own */
		return descend(sh, depth - 1, acc + pad[depth % 200]) + pad[(depth + 1) % 200];
	while (!sh->quit) {
		uint64_t end = now_ns() + 20 * 1000 * 1000;
		while (now_ns() < end)
			acc = acc * 6364136223846793005ULL + 1;
		sh->sleeps++;
		struct timespec ts = {0, 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return acc;
}

/* Parked in a read of `first` (sleeps 1), then — marked waiting on its stack — in a read of
 * `second`; once that returns, marked working, it spins. */
static void blocker(struct shared *sh, int first, int second)
{
	volatile uint64_t mark = 1;
	sh->mark_at = (uint64_t)(uintptr_t)&mark;
	char b;
	sh->sleeps = 1;
	if (read(first, &b, 1) != 1 || read(second, &b, 1) != 1)
		_exit(1);
	mark = 0;
	sh->woke = 1;
	uint64_t acc = 1;
	while (!sh->quit)
		acc = acc * 6364136223846793005ULL + now_ns();
	_exit((int)(acc & 1));
}

struct child {
	pid_t pid;
	struct shared *sh;
	int first[2], second[2]; /* the blocking child's pipes */
};

/* A child running descend (or, blocking, blocker), once it is on its way. */
static void start_child_as(struct child *c, bool blocking)
{
	c->sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(c->sh, MAP_FAILED);
	cr_assert(!blocking || (pipe(c->first) == 0 && pipe(c->second) == 0));
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed assertion ends the test: the child too */
		if (blocking)
			blocker(c->sh, c->first[0], c->second[0]);
		descend(c->sh, 40, 1);
		_exit(0);
	}
	while (!c->sh->sleeps)
		usleep(1000);
}

static void start_child(struct child *c)
{
	start_child_as(c, false);
}

static void stop_child(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, __WALL);
	munmap(c->sh, 4096);
}

static void seize_or_skip(struct child *c, struct switch_copy *k)
{
	switch_copy_init(k, c->pid, 65536, NULL);
	if (!k->on) {
		stop_child(c);
		cr_skip_test("the kernel's stack copy is not available here: %s", k->why_off);
	}
	if (ptrace(PTRACE_SEIZE, c->pid, NULL, NULL) != 0) {
		int err = errno;
		switch_copy_free(k);
		stop_child(c);
		cr_skip_test("ptrace is refused here: %s", strerror(err));
	}
}

/* Interrupt the child and wait for the stop; its registers then (after the thread is off its CPU). */
static void stop_it(pid_t pid, struct regset *regs)
{
	cr_assert_eq(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL), 0);
	int st;
	for (;;) {
		cr_assert_eq(waitpid(pid, &st, __WALL), pid);
		cr_assert(WIFSTOPPED(st));
		if (st >> 16 == PTRACE_EVENT_STOP)
			break;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
	}
	cr_assert_eq(regset_read_ptrace(pid, regs), 0);
}

Test(switch_copy, the_kernels_copy_is_the_stopped_threads_stack)
{
	struct child c;
	start_child(&c);
	struct switch_copy k;
	seize_or_skip(&c, &k);
	static uint8_t mine[1 << 16];
	int exact = 0, tries = 40;
	for (int i = 0; i < tries; i++) {
		usleep(3000);
		cr_assert(switch_copy_arm(&k, c.pid, now_ns()));
		struct regset regs;
		stop_it(c.pid, &regs);
		struct switch_take tk;
		cr_assert(switch_copy_take(&k, c.pid, regs.r[REG_SP], regs.r[REG_PC], &tk), "stop %d has its record", i);
		const struct switch_record rec = tk.rec;
		if (rec.regs.r[REG_SP] == regs.r[REG_SP] && rec.regs.r[REG_PC] == regs.r[REG_PC]) {
			/* of this stop: the registers and the stack as the stopped thread has them */
			exact++;
			cr_assert(reg_ok(&rec.regs, REG_FP) && reg_ok(&rec.regs, 0));
			/* every register the record has (x86-64: not the callee-saved ones but bp, in a
			 * record taken in the kernel) is the stop's */
			for (int r = 0; r < ARCH_NREGS; r++)
				cr_assert(!reg_ok(&rec.regs, r) || rec.regs.r[r] == regs.r[r], "register %d", r);
			size_t len = rec.stack_len + rec.more_len;
			cr_assert_gt(len, 40 * 200, "the frames of the recursion were copied (%zu bytes from sp %#llx)",
				     len, (unsigned long long)regs.r[REG_SP]);
			struct iovec l = {mine, len}, r = {(void *)(uintptr_t)regs.r[REG_SP], len};
			cr_assert_eq(process_vm_readv(c.pid, &l, 1, &r, 1, 0), (ssize_t)len);
			cr_assert(memcmp(mine, rec.stack, rec.stack_len) == 0 &&
				  (rec.more_len == 0 || memcmp(mine + rec.stack_len, rec.more, rec.more_len) == 0),
				  "stop %d: the copy differs from the stack", i);
		}
		switch_copy_give_back(&k, c.pid);
		cr_assert_eq(ptrace(PTRACE_CONT, c.pid, NULL, NULL), 0);
	}
	/* the child may switch out before its stop (its 1 ms sleep out of 21, or a preemption on a
	 * busy machine); nearly all records are of the stop */
	cr_assert_geq(exact, tries - 8, "%d of %d records of the stop itself (earlier %lu)", exact, tries, k.st.earlier);
	cr_assert_eq(k.st.taken, (unsigned long)tries);
	switch_copy_free(&k);
	stop_child(&c);
}

Test(switch_copy, the_stops_record_is_taken_not_one_of_a_switch_before_it_nor_of_a_shut_ring)
{
	struct child c;
	start_child_as(&c, true);
	usleep(5000); /* parked in its first read */
	struct switch_copy k;
	seize_or_skip(&c, &k);
	/* armed while it waits; woken, it waits again at once (a switch recorded: marked waiting),
	 * then it is woken to work, and stopped (the newest record: marked working) */
	uint64_t armed = now_ns();
	cr_assert(switch_copy_arm(&k, c.pid, armed));
	cr_assert_eq(write(c.first[1], "x", 1), 1);
	usleep(5000);
	cr_assert_eq(write(c.second[1], "x", 1), 1);
	while (!c.sh->woke)
		usleep(200);
	usleep(1000);
	struct regset regs;
	stop_it(c.pid, &regs);
	struct switch_take tk;
	cr_assert(switch_copy_take(&k, c.pid, regs.r[REG_SP], regs.r[REG_PC], &tk));
	const struct switch_record *rec = &tk.rec;
	cr_assert_eq(k.st.earlier, 0, "the record is the stop's");
	cr_assert_eq(rec->regs.r[REG_PC], regs.r[REG_PC]);
	cr_assert_eq(rec->regs.r[REG_SP], regs.r[REG_SP]);
	cr_assert(rec->time_ns >= armed && rec->time_ns < now_ns());
	uint64_t at = c.sh->mark_at, sp = rec->regs.r[REG_SP], mark;
	cr_assert(at >= sp && at + 8 <= sp + rec->stack_len, "the child's word is in the copy's first piece");
	memcpy(&mark, rec->stack + (at - sp), 8);
	cr_assert_eq(mark, 0, "at work in the record, as at the stop");
	switch_copy_give_back(&k, c.pid);
	/* shut since: the child's switches while it runs on are not recorded, and a stop not armed
	 * for has no record */
	cr_assert_eq(ptrace(PTRACE_CONT, c.pid, NULL, NULL), 0);
	usleep(20000);
	stop_it(c.pid, &regs);
	cr_assert_not(switch_copy_take(&k, c.pid, regs.r[REG_SP], regs.r[REG_PC], &tk), "not armed: no record");
	cr_assert_eq(ptrace(PTRACE_CONT, c.pid, NULL, NULL), 0);
	usleep(2000);
	armed = now_ns();
	cr_assert(switch_copy_arm(&k, c.pid, armed));
	stop_it(c.pid, &regs);
	cr_assert(switch_copy_take(&k, c.pid, regs.r[REG_SP], regs.r[REG_PC], &tk));
	cr_assert(tk.rec.time_ns >= armed, "of this arming");
	cr_assert_eq(tk.rec.regs.r[REG_PC], regs.r[REG_PC]);
	cr_assert_eq(ptrace(PTRACE_CONT, c.pid, NULL, NULL), 0);
	switch_copy_free(&k);
	stop_child(&c);
}
