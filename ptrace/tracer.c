/* tracer.c — ptrace mechanics: seize, interrupt, event pump, resume, detach. */
#include "tracer.h"
#include "perf_why.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch_defs.h"
#include "../util/clock.h"
#include "../util/fd_room.h"
#include "../util/proc_stat.h"
#include "../util/xalloc.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

struct tthread *tracer_thread(struct tracer *tr, pid_t tid)
{
	uint64_t v;
	if (!u64map_get(&tr->by_tid, (uint64_t)tid, &v))
		return NULL;
	return &tr->threads[v - 1];
}

static void read_comm(struct tracer *tr, struct tthread *t)
{
	char fn[96];
	snprintf(fn, sizeof(fn), "/proc/%d/task/%d/comm", (int)tr->pid, (int)t->tid);
	FILE *f = fopen(fn, "re");
	t->comm[0] = 0;
	if (!f)
		return;
	if (fgets(t->comm, sizeof(t->comm), f))
		t->comm[strcspn(t->comm, "\n")] = 0;
	fclose(f);
}

static int open_task_file(const struct tracer *tr, pid_t tid, const char *name)
{
	char fn[96];
	snprintf(fn, sizeof(fn), "/proc/%d/task/%d/%s", (int)tr->pid, (int)tid, name);
	return open(fn, O_RDONLY | O_CLOEXEC);
}

/* A thread seen for the first time (or a reused tid): its /proc files and name. */
static void open_thread(struct tracer *tr, struct tthread *t, pid_t tid)
{
	t->tid = tid;
	t->state = TS_RUNNING;
	t->stat_fd = fd_below(open_task_file(tr, tid, "stat"), tr->fd_ceiling);
	int stat_errno = t->stat_fd < 0 ? errno : 0;
	t->schedstat_fd = fd_below(open_task_file(tr, tid, "schedstat"), tr->fd_ceiling);
	int err = -EPERM; /* (rings_off: setup said why) */
	if (tr->rings_off)
		run_ring_none(&t->ring);
	else
		err = run_ring_open(&t->ring, tid, tr->fd_ceiling);
	if (!err)
		tr->rings_open++;
	else if (!tr->ring_why[0])
		perf_why(tr->ring_why, sizeof(tr->ring_why), -err, "the kernel refused a context-switch record event");
	if (err && stat_errno && !tr->threads_blind++)
		tr->blind_errno = stat_errno;
	t->last_syscall = -1;
	t->syscall_fresh = false;
	read_comm(tr, t);
}

static struct tthread *add_thread(struct tracer *tr, pid_t tid)
{
	XGROW(tr->threads, tr->cap, tr->n + 1);
	struct tthread *t = &tr->threads[tr->n];
	memset(t, 0, sizeof(*t));
	open_thread(tr, t, tid);
	u64map_put(&tr->by_tid, (uint64_t)tid, ++tr->n);
	tr->threads_seen++;
	return t;
}

static void close_task_files(struct tthread *t)
{
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	t->stat_fd = t->schedstat_fd = -1;
	run_ring_close(&t->ring);
}

static void mark_gone(struct tthread *t)
{
	t->state = TS_GONE;
	t->interrupting = t->want_sample = false;
	close_task_files(t);
}

static int seize(pid_t tid)
{
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
		return -errno;
	return 0;
}

int tracer_init_signals(struct tracer *tr)
{
	memset(tr, 0, sizeof(*tr));
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -errno;
	tr->sigchld_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return tr->sigchld_fd < 0 ? -errno : 0;
}

void tracer_sleep(struct tracer *tr, uint64_t timeout_ns)
{
	struct pollfd p = {.fd = tr->sigchld_fd, .events = POLLIN};
	struct timespec ts = {(time_t)(timeout_ns / 1000000000ULL), (long)(timeout_ns % 1000000000ULL)};
	if (ppoll(&p, 1, &ts, NULL) > 0) {
		/* SIGCHLD, a standard signal, is pending once at most: a read that did not fill the
		 * buffer took every one (reading on to EAGAIN was a failing call per wake-up) */
		struct signalfd_siginfo si[8];
		while (read(tr->sigchld_fd, si, sizeof(si)) == (ssize_t)sizeof(si))
			;
	}
}

static void setup(struct tracer *tr, pid_t pid, tracer_stop_cb cb, void *ctx)
{
	tr->pid = pid;
	tr->fd_ceiling = fd_ceiling(128); /* room for v8walk's own files and the stack-copy events */
	struct utsname u;
	tr->rings_off = uname(&u) == 0 && !run_rings_allowed(u.release);
	if (tr->rings_off)
		snprintf(tr->ring_why, sizeof(tr->ring_why), "not opened on this kernel: Linux on %s before "
			 "%d.%d can lock up closing perf events of running threads", ARCH_NAME,
			 ARCH_THREAD_PERF_EVENTS_FROM >> 16, ARCH_THREAD_PERF_EVENTS_FROM >> 8 & 0xff);
	tr->on_stop = cb;
	tr->cb_ctx = ctx;
	u64map_init(&tr->by_tid, 0);
}

int tracer_attach(struct tracer *tr, pid_t pid, tracer_stop_cb cb, void *ctx)
{
	setup(tr, pid, cb, ctx);
	int err = seize(pid);
	if (err)
		return err;
	add_thread(tr, pid);
	tracer_scan_threads(tr);
	return 0;
}

void tracer_adopt(struct tracer *tr, pid_t pid, tracer_stop_cb cb, void *ctx)
{
	setup(tr, pid, cb, ctx);
	struct tthread *t = add_thread(tr, pid);
	t->state = TS_STOPPED;
	tracer_resume(tr, t);
}

void tracer_scan_threads(struct tracer *tr)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/task", (int)tr->pid);
	DIR *d = opendir(fn);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		pid_t tid = (pid_t)atoi(e->d_name);
		struct tthread *t = tracer_thread(tr, tid);
		if (t && t->state != TS_GONE)
			continue;
		if (seize(tid) != 0)
			continue;
		if (t) {
			/* the kernel reused the tid of a thread that exited */
			void *user = t->user;
			memset(t, 0, sizeof(*t));
			t->user = user;
			open_thread(tr, t, tid);
			tr->threads_seen++;
		} else {
			add_thread(tr, tid);
		}
	}
	closedir(d);
}

char tthread_proc_state(struct tthread *t)
{
	if (t->stat_fd < 0)
		return 0;
	char buf[512];
	ssize_t n = pread(t->stat_fd, buf, sizeof(buf), 0);
	struct proc_stat st;
	return n > 0 && proc_stat_parse(buf, (size_t)n, &st) ? st.state : 0;
}

/* The three figures of schedstat (false: unreadable). */
static bool read_schedstat(struct tthread *t, uint64_t v[3])
{
	char buf[96];
	ssize_t n = t->schedstat_fd >= 0 ? pread(t->schedstat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return false;
	buf[n] = 0;
	char *p = buf, *end;
	for (int i = 0; i < 3; i++, p = end) {
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno)
			return false;
	}
	return true;
}

char tthread_state_now(struct tthread *t, bool which_sleep)
{
	switch (run_ring_look(&t->ring)) {
	case RUN_ON_CPU:
	case RUN_PREEMPTED:
		t->syscall_fresh = false;
		t->sleep_unread = false;
		return t->last_state = 'R';
	case RUN_UNSWITCHED:
		if (t->last_state && t->last_state != 'R' && (!which_sleep || !t->sleep_unread))
			return t->last_state;
		break;
	case RUN_ASLEEP_MOVED:
		t->syscall_fresh = false;
		if (!which_sleep) {
			t->sleep_unread = true;
			return t->last_state = 'S';
		}
		break; /* it ran since: what it sleeps in now is read below */
	case RUN_UNKNOWN:
		break;
	}
	t->sleep_unread = false;
	/* a running thread's run time may not move between two scheduler ticks: R is always asked,
	 * and its run time is read only once it has left R, to tell when it runs again (one read a
	 * tick for a busy thread, not two) */
	if (t->last_state == 'R') {
		t->syscall_fresh = false;
		char state = tthread_proc_state(t);
		if (state != 'R' && !read_schedstat(t, t->schedstat))
			memset(t->schedstat, 0, sizeof(t->schedstat));
		return t->last_state = state;
	}
	uint64_t now[3];
	bool have = read_schedstat(t, now);
	bool unmoved = have && t->last_state && !memcmp(now, t->schedstat, sizeof(now));
	if (have)
		memcpy(t->schedstat, now, sizeof(now));
	if (!unmoved)
		t->syscall_fresh = false;
	if (unmoved)
		return t->last_state;
	return t->last_state = tthread_proc_state(t);
}

long tthread_sleep_syscall(const struct tracer *tr, struct tthread *t)
{
	if (t->syscall_fresh)
		return t->last_syscall;
	long nr = -1;
	int fd = open_task_file(tr, t->tid, "syscall");
	if (fd >= 0) {
		char buf[32];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		close(fd);
		/* "NR arg1 … sp pc" while it sleeps in a system call; "running", or -1 outside one */
		if (n > 0 && buf[0] >= '0' && buf[0] <= '9') {
			buf[n] = 0;
			nr = strtol(buf, NULL, 10);
		}
	}
	t->last_syscall = nr;
	t->syscall_fresh = true;
	return nr;
}

bool tracer_request_sample(struct tracer *tr, struct tthread *t, uint64_t now)
{
	(void)tr;
	if (t->state == TS_GONE || t->want_sample)
		return false;
	if (t->state == TS_GROUP_STOPPED)
		return false; /* not running: nothing to sample */
	if (!t->interrupting) {
		if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0) {
			if (errno == ESRCH)
				return false; /* exiting; the pump will reap it */
			return false;
		}
		t->interrupting = true;
	}
	t->want_sample = true;
	t->interrupt_ns = now;
	return true;
}

static void cont(struct tthread *t, int sig)
{
	if (ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)sig) == 0)
		t->state = TS_RUNNING;
	else if (errno == ESRCH)
		t->state = TS_RUNNING; /* killed while stopped; its exit is reported next */
}

void tracer_resume(struct tracer *tr, struct tthread *t)
{
	(void)tr;
	if (t->state != TS_STOPPED)
		return;
	if (t->in_group_stop) {
		if (ptrace(PTRACE_LISTEN, t->tid, NULL, NULL) == 0)
			t->state = TS_GROUP_STOPPED;
		else
			t->state = TS_RUNNING;
		return;
	}
	int sig = t->stop_sig;
	t->stop_sig = 0;
	cont(t, sig);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void handle_status(struct tracer *tr, pid_t tid, int status)
{
	struct tthread *t = tracer_thread(tr, tid);
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t)
			mark_gone(t);
		if (tid == tr->pid) {
			tr->leader_exited = true;
			tr->exit_status = status;
		}
		return;
	}
	if (!WIFSTOPPED(status) || !t)
		return;
	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;
	if (event == PTRACE_EVENT_STOP) {
		/* our interrupt (SIGTRAP) or a group-stop (stop signal) */
		t->interrupting = false;
		t->state = TS_STOPPED;
		t->in_group_stop = is_stop_signal(sig);
		if (t->in_group_stop)
			tr->group_stops++;
		t->stop_sig = 0;
		if (t->want_sample) {
			t->want_sample = false;
			if (tr->on_stop)
				tr->on_stop(tr->cb_ctx, t);
		}
		if (t->state == TS_STOPPED)
			tracer_resume(tr, t);
		return;
	}
	if (event != 0) {
		/* no other ptrace events are enabled; resume whatever it was */
		t->state = TS_STOPPED;
		t->in_group_stop = false;
		t->stop_sig = 0;
		tracer_resume(tr, t);
		return;
	}
	/* signal-delivery-stop: the target's own signal, passed on untouched. A pending interrupt
	 * still fires afterwards. */
	tr->signals_forwarded++;
	t->state = TS_STOPPED;
	t->in_group_stop = false;
	t->stop_sig = sig;
	tracer_resume(tr, t);
}

int tracer_pump(struct tracer *tr)
{
	int handled = 0;
	for (;;) {
		int status;
		pid_t tid = waitpid(-1, &status, WNOHANG | __WALL);
		if (tid <= 0)
			break;
		handle_status(tr, tid, status);
		handled++;
	}
	return handled;
}

void tracer_detach_all(struct tracer *tr, uint64_t timeout_ns)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct tthread *t = &tr->threads[i];
		if (t->state == TS_GONE)
			continue;
		t->want_sample = false;
		if (t->state == TS_RUNNING && !t->interrupting) {
			if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0) {
				mark_gone(t);
				continue;
			}
			t->interrupting = true;
		}
	}
	uint64_t deadline = now_ns() + timeout_ns;
	for (;;) {
		bool pending = false;
		for (size_t i = 0; i < tr->n; i++) {
			struct tthread *t = &tr->threads[i];
			if (t->state == TS_GONE)
				continue;
			int status;
			pid_t got = waitpid(t->tid, &status, WNOHANG | __WALL);
			if (got == t->tid && WIFSTOPPED(status)) {
				int sig = WSTOPSIG(status);
				int event = (unsigned)status >> 16;
				int inject = 0;
				if (event == 0)
					inject = sig; /* a signal on its way: hand it over with the detach */
				ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)inject);
				mark_gone(t);
				continue;
			}
			if (got == t->tid || (got < 0 && errno == ECHILD)) {
				mark_gone(t);
				continue;
			}
			if (t->state == TS_GROUP_STOPPED) {
				/* listening in a group-stop: it counts as stopped for PTRACE_DETACH */
				if (ptrace(PTRACE_DETACH, t->tid, NULL, NULL) == 0 || errno == ESRCH) {
					mark_gone(t);
					continue;
				}
			}
			pending = true;
		}
		uint64_t now = now_ns();
		if (!pending || now >= deadline)
			break;
		tracer_sleep(tr, deadline - now < 1000000 ? deadline - now : 1000000);
	}
	/* Threads that never stopped (uninterruptible sleep) are released by the kernel when this
	 * process exits: ptrace detaches all tracees of an exiting tracer and they run on. */
}

void tracer_free(struct tracer *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		close_task_files(&tr->threads[i]);
	free(tr->threads);
	u64map_free(&tr->by_tid);
	if (tr->sigchld_fd > 0)
		close(tr->sigchld_fd);
	memset(tr, 0, sizeof(*tr));
}

bool tracer_alive(const struct tracer *tr)
{
	if (tr->leader_exited)
		return false;
	for (size_t i = 0; i < tr->n; i++)
		if (tr->threads[i].state != TS_GONE)
			return true;
	return false;
}
