/* floor_probe.c — the physical floor of a ptrace sample, for bench/real_cost.js: at the same rate
 * as v8walk it does only what any ptrace stack sampler must — PTRACE_INTERRUPT the target's main
 * thread, wait for the stop, PTRACE_GETREGS, one process_vm_readv of the same stack bytes v8walk
 * copies (from sp minus the red zone, 64 KiB by default, cut at the end of the stack's mapping as
 * v8walk cuts it: a read that runs past it costs a failed page lookup), PTRACE_CONT — at
 * SCHED_FIFO when it may (v8walk holds that policy while a stop is handled) — and reports the pause the
 * way v8walk's summary measures it (from seeing the stop to being ready to resume), plus the lag
 * (interrupt to stop seen) and the whole stop (interrupt to resumed), as one JSON line on stdout.
 * With --kernel-copy the stack is copied as v8walk copies it by default: by the kernel as the
 * thread switches out into its stop (ptrace/switch_copy.h: a perf event armed before the
 * interrupt), then out of the event's ring into the probe's buffer while the thread is stopped;
 * a stop whose record is not of it is copied with process_vm_readv, as v8walk does.
 *
 *   floor_probe [--kernel-copy] PID RATE_HZ SECONDS [STACK_KIB]
 *
 * SIGINT/SIGTERM end it early (after the stop in progress, the target resumed and detached).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

#include "../ptrace/switch_copy.h"
#include "../util/clock.h"

#define RED_ZONE 128
#define MAX_SAMPLES (1u << 20)

struct probe_opts {
	pid_t pid;
	double rate_hz;
	double seconds;
	size_t stack_bytes;
	uint64_t stack_lo, stack_hi; /* the main thread's stack mapping ([stack] in the maps), or 0 */
	bool kernel_copy;            /* --kernel-copy */
};

/* The [stack] mapping of the process, read once (0, 0 when not found: nothing is cut). */
static void find_stack(struct probe_opts *o)
{
	char fn[64], line[512];
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)o->pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
			o->stack_lo = lo;
			o->stack_hi = hi;
		}
	}
	fclose(f);
}

struct probe_stats {
	uint64_t *pause_ns, *lag_ns, *stop_ns;
	size_t n;
	size_t short_reads;  /* process_vm_readv copied less than asked (stack top reached) */
	uint64_t bytes_read; /* total */
	size_t other_stops;  /* signal-delivery stops passed on to the target */
	size_t kernel_copies; /* stops whose stack the kernel copied (--kernel-copy) */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double quantile_us(uint64_t *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return (double)v[i < n ? i : n - 1] / 1e3;
}

static int parse_opts(int argc, char **argv, struct probe_opts *o)
{
	if (argc > 1 && !strcmp(argv[1], "--kernel-copy")) {
		o->kernel_copy = true;
		argv++;
		argc--;
	}
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: floor_probe [--kernel-copy] PID RATE_HZ SECONDS [STACK_KIB]\n");
		return -1;
	}
	char *end;
	long pid = strtol(argv[1], &end, 10);
	if (*end || pid <= 0 || pid > INT32_MAX) {
		fprintf(stderr, "floor_probe: bad pid '%s'\n", argv[1]);
		return -1;
	}
	o->pid = (pid_t)pid;
	o->rate_hz = strtod(argv[2], &end);
	if (*end || !(o->rate_hz > 0 && o->rate_hz <= 100000)) {
		fprintf(stderr, "floor_probe: bad rate '%s' (1..100000 Hz)\n", argv[2]);
		return -1;
	}
	o->seconds = strtod(argv[3], &end);
	if (*end || !(o->seconds > 0 && o->seconds <= 86400)) {
		fprintf(stderr, "floor_probe: bad duration '%s' (seconds, up to a day)\n", argv[3]);
		return -1;
	}
	long kib = argc == 5 ? strtol(argv[4], &end, 10) : 64;
	if ((argc == 5 && *end) || kib < 1 || kib > 8192) {
		fprintf(stderr, "floor_probe: bad stack size '%s' (1..8192 KiB)\n", argv[4]);
		return -1;
	}
	o->stack_bytes = (size_t)kib * 1024;
	return 0;
}

/* Wait for the interrupt's stop of TID; signal-delivery stops on the way are passed on. 0 when
 * stopped for us, -1 when the target is gone. */
static int wait_interrupt_stop(pid_t tid, struct probe_stats *st)
{
	for (;;) {
		int status;
		if (waitpid(tid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return -1;
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 16 == PTRACE_EVENT_STOP)
			return 0; /* the interrupt (or a group stop: also a stop we may read) */
		/* a signal on its way to the target: deliver it, keep waiting for our stop */
		st->other_stops++;
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(intptr_t)WSTOPSIG(status)) != 0)
			return -1;
	}
}

/* The stack the kernel copied as the thread switched out, into buf: the bytes copied, or -1 (no
 * record). */
static ssize_t take_kernel_copy(struct switch_copy *k, const struct probe_opts *o,
				const struct user_regs_struct *regs, unsigned char *buf)
{
	struct switch_take tk;
	if (!switch_copy_take(k, o->pid, regs->rsp, regs->rip, &tk))
		return -1;
	const struct switch_record rec = tk.rec;
	uint64_t sp = rec.regs.r[DW_RSP];
	size_t len = rec.stack_len + rec.more_len;
	if (sp >= o->stack_lo && sp < o->stack_hi && o->stack_hi - sp < len)
		len = (size_t)(o->stack_hi - sp);
	if (len > o->stack_bytes)
		len = o->stack_bytes;
	/* copied out while the thread is stopped (v8walk copies it after), so this is the same as
	 * the process_vm_readv floor: the copy the stop waits for */
	size_t first = len < rec.stack_len ? len : rec.stack_len;
	memcpy(buf, rec.stack, first);
	memcpy(buf + first, rec.more, len - first);
	switch_copy_give_back(k, o->pid);
	return (ssize_t)len;
}

/* One sample: the floor's whole work. 0 ok, -1 target gone. */
static int sample_once(const struct probe_opts *o, struct switch_copy *k, unsigned char *buf,
		       struct probe_stats *st)
{
	uint64_t t_int = now_ns();
	bool armed = o->kernel_copy && switch_copy_arm(k, o->pid, t_int);
	if (ptrace(PTRACE_INTERRUPT, o->pid, NULL, NULL) != 0)
		return -1;
	if (wait_interrupt_stop(o->pid, st) != 0)
		return -1;
	uint64_t t_seen = now_ns();
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, o->pid, NULL, &regs) != 0)
		return -1;
	uint64_t from = regs.rsp - RED_ZONE;
	size_t len = o->stack_bytes;
	if (from >= o->stack_lo && from < o->stack_hi && o->stack_hi - from < len)
		len = (size_t)(o->stack_hi - from);
	ssize_t got = armed ? take_kernel_copy(k, o, &regs, buf) : -1;
	if (got >= 0) {
		st->kernel_copies++;
		len = (size_t)got;
	} else {
		struct iovec local = { buf, len };
		struct iovec remote = { (void *)(uintptr_t)from, len };
		got = process_vm_readv(o->pid, &local, 1, &remote, 1, 0);
	}
	uint64_t t_done = now_ns();
	if (ptrace(PTRACE_CONT, o->pid, NULL, NULL) != 0)
		return -1;
	uint64_t t_resumed = now_ns();
	if (got < (ssize_t)len)
		st->short_reads++;
	if (got > 0)
		st->bytes_read += (uint64_t)got;
	if (st->n < MAX_SAMPLES) {
		st->pause_ns[st->n] = t_done - t_seen;
		st->lag_ns[st->n] = t_seen - t_int;
		st->stop_ns[st->n] = t_resumed - t_int;
		st->n++;
	}
	return 0;
}

/* Sleep until DEADLINE_NS (monotonic) or a stop signal: true when a signal asked us to stop. */
static int sleep_or_signal(const sigset_t *stop_set, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = now_ns();
		if (now >= deadline_ns)
			return 0;
		uint64_t left = deadline_ns - now;
		struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		int sig = sigtimedwait(stop_set, NULL, &ts);
		if (sig > 0)
			return 1;
		if (errno != EINTR && errno != EAGAIN)
			return 1;
	}
}

static void print_result(const struct probe_opts *o, struct probe_stats *st, double secs, int gone,
			 int fifo)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("{\"pid\":%d,\"rateHz\":%g,\"seconds\":%.3f,\"samples\":%zu,\"targetGone\":%s,"
	       "\"stackBytes\":%zu,\"meanBytesRead\":%.0f,\"shortReads\":%zu,\"otherStops\":%zu,"
	       "\"pauseMedianUs\":%.1f,\"pauseP99Us\":%.1f,\"pauseMaxUs\":%.1f,"
	       "\"lagMedianUs\":%.1f,\"lagP99Us\":%.1f,\"stopMedianUs\":%.1f,\"stopP99Us\":%.1f,"
	       "\"stopMaxUs\":%.1f,\"cpuPercent\":%.2f,\"fifo\":%s,\"kernelCopy\":%s,\"kernelCopies\":%zu}\n",
	       (int)o->pid, o->rate_hz, secs, st->n, gone ? "true" : "false", o->stack_bytes,
	       st->n ? (double)st->bytes_read / (double)st->n : 0.0, st->short_reads, st->other_stops,
	       quantile_us(st->pause_ns, st->n, 0.5), quantile_us(st->pause_ns, st->n, 0.99),
	       quantile_us(st->pause_ns, st->n, 1.0), quantile_us(st->lag_ns, st->n, 0.5),
	       quantile_us(st->lag_ns, st->n, 0.99), quantile_us(st->stop_ns, st->n, 0.5),
	       quantile_us(st->stop_ns, st->n, 0.99), quantile_us(st->stop_ns, st->n, 1.0),
	       secs > 0 ? 100.0 * cpu / secs : 0.0, fifo ? "true" : "false", o->kernel_copy ? "true" : "false",
	       st->kernel_copies);
}

int main(int argc, char **argv)
{
	struct probe_opts o = { 0 };
	if (parse_opts(argc, argv, &o) != 0)
		return 2;
	sigset_t stop_set;
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_set, NULL);

	struct probe_stats st = { 0 };
	size_t cap = (size_t)(o.rate_hz * o.seconds) + 16;
	if (cap > MAX_SAMPLES)
		cap = MAX_SAMPLES;
	st.pause_ns = calloc(cap, sizeof(uint64_t));
	st.lag_ns = calloc(cap, sizeof(uint64_t));
	st.stop_ns = calloc(cap, sizeof(uint64_t));
	unsigned char *buf = malloc(o.stack_bytes);
	if (!st.pause_ns || !st.lag_ns || !st.stop_ns || !buf) {
		fprintf(stderr, "floor_probe: out of memory\n");
		return 1;
	}
	find_stack(&o);
	struct switch_copy k;
	switch_copy_init(&k, o.pid, o.stack_bytes, o.kernel_copy ? NULL : "not asked");
	if (o.kernel_copy && !k.on) {
		fprintf(stderr, "floor_probe: --kernel-copy: %s\n", k.why_off);
		return 1;
	}
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };
	int fifo = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
	if (ptrace(PTRACE_SEIZE, o.pid, NULL, NULL) != 0) {
		fprintf(stderr, "floor_probe: cannot trace process %d: %s\n", (int)o.pid, strerror(errno));
		return 1;
	}
	uint64_t period = (uint64_t)(1e9 / o.rate_hz);
	uint64_t start = now_ns(), end = start + (uint64_t)(o.seconds * 1e9), next = start + period;
	int gone = 0;
	while (!gone && st.n < cap) {
		if (sleep_or_signal(&stop_set, next) || now_ns() >= end)
			break;
		next += period;
		uint64_t now = now_ns();
		if (next < now) /* fell behind (the probe was not scheduled): skip, as v8walk does */
			next = now + period;
		gone = sample_once(&o, &k, buf, &st) != 0;
	}
	double secs = (double)(now_ns() - start) / 1e9;
	if (!gone) { /* a seized tracee is detached from a stop */
		if (ptrace(PTRACE_INTERRUPT, o.pid, NULL, NULL) == 0 && wait_interrupt_stop(o.pid, &st) == 0)
			ptrace(PTRACE_DETACH, o.pid, NULL, NULL);
	}
	print_result(&o, &st, secs, gone, fifo);
	switch_copy_free(&k);
	free(buf);
	free(st.pause_ns);
	free(st.lag_ns);
	free(st.stop_ns);
	return 0;
}
