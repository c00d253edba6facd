/* tracer.h — ptrace control of a target's threads without harming it: PTRACE_SEIZE (no SIGSTOP),
 * PTRACE_INTERRUPT to stop one thread for a sample, and an event pump that re-injects the target's
 * own signals, honours group-stops (PTRACE_LISTEN) and notices threads that come and go. If v8walk
 * dies, the kernel detaches every thread and they run on. */
#ifndef V8WALK_TRACER_H
#define V8WALK_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/u64map.h"
#include "run_ring.h"

enum tstate {
	TS_RUNNING,       /* seized, running */
	TS_STOPPED,       /* in a ptrace-stop that we are holding */
	TS_GROUP_STOPPED, /* stopped by SIGSTOP & co.; left in PTRACE_LISTEN */
	TS_GONE,
};

struct tthread {
	pid_t tid;
	int stat_fd;          /* /proc/PID/task/TID/stat, kept open */
	int schedstat_fd;     /* /proc/PID/task/TID/schedstat, kept open (-1: none) */
	uint64_t schedstat[3]; /* its figures at the last look: run time, wait time, times run */
	struct run_ring ring; /* its context switches, when perf events allow (fd -1: none) */
	char last_state;      /* the state stat gave at the last look (0: none yet) */
	bool sleep_unread;    /* last_state 'S' stands for a sleep not read from stat */
	long last_syscall;    /* the system call it slept in at the last look (-1: none) */
	bool syscall_fresh;   /* last_syscall holds: it has not run since */
	enum tstate state;
	bool interrupting;    /* PTRACE_INTERRUPT sent, stop not yet seen */
	bool want_sample;     /* sample it when the stop arrives */
	int stop_sig;         /* signal to re-inject when resuming from a signal-delivery-stop */
	bool in_group_stop;   /* the current stop is a group-stop */
	uint64_t interrupt_ns;
	char comm[17];
	void *user;           /* owned by the sampler (per-thread labels etc.) */
};

/* Called when a thread we wanted to sample is stopped; it must not resume the thread. */
typedef void (*tracer_stop_cb)(void *ctx, struct tthread *t);

struct tracer {
	pid_t pid;
	struct tthread *threads;
	size_t n, cap;
	struct u64map by_tid; /* tid → index + 1 */
	bool leader_exited;   /* the whole process is gone */
	int exit_status;      /* wait status of the thread-group leader, when it was ours to reap */
	int sigchld_fd;       /* signalfd for SIGCHLD: wakes waits without polling */
	tracer_stop_cb on_stop;
	void *cb_ctx;
	unsigned long signals_forwarded, group_stops, threads_seen;
	unsigned long rings_open; /* threads whose state ticks read from their switch records */
	char ring_why[384];       /* why the first ring that could not be opened was not ("": none) */
	bool rings_off;           /* this kernel gets none (run_rings_allowed) */
	int fd_ceiling;           /* per-thread files are not kept at or above this descriptor */
	unsigned long threads_blind; /* seen with neither switch records nor a stat file: never sampled */
	int blind_errno;             /* why the first of them had no stat file */
};

/* Block SIGCHLD and route it to a signalfd; call before starting or attaching to a target. */
int tracer_init_signals(struct tracer *tr);
/* Seize the thread-group leader first: its errno tells why attaching is refused. Returns 0 or
 * -errno. Then tracer_scan_threads seizes the others. */
int tracer_attach(struct tracer *tr, pid_t pid, tracer_stop_cb cb, void *ctx);
/* Take over a single-threaded process already seized by the caller and held in a ptrace-stop
 * (launch mode: at its execve, PTRACE_O_TRACEEXEC), then resume it. */
void tracer_adopt(struct tracer *tr, pid_t pid, tracer_stop_cb cb, void *ctx);
/* The thread with this tid, or NULL (valid until threads are added or scanned). */
struct tthread *tracer_thread(struct tracer *tr, pid_t tid);
/* Seize threads that appeared since the last scan; forget ones that vanished. */
void tracer_scan_threads(struct tracer *tr);
/* Ask a running thread to stop for a sample (asynchronous: the stop is delivered by the pump). */
/* The system call a sleeping thread waits in (/proc/PID/task/TID/syscall, read again only once
 * it has run since: tthread_state_now tells), or -1 (running, unreadable). */
long tthread_sleep_syscall(const struct tracer *tr, struct tthread *t);

bool tracer_request_sample(struct tracer *tr, struct tthread *t, uint64_t now);
/* Collect all pending wait events (non-blocking); returns the number handled. */
int tracer_pump(struct tracer *tr);
/* Sleep until a child event arrives or timeout_ns passes. */
void tracer_sleep(struct tracer *tr, uint64_t timeout_ns);
/* Resume a thread we hold stopped. */
void tracer_resume(struct tracer *tr, struct tthread *t);
/* Detach from every thread (each is stopped briefly first, as PTRACE_DETACH requires). */
void tracer_detach_all(struct tracer *tr, uint64_t timeout_ns);
void tracer_free(struct tracer *tr);
/* Thread state letter from /proc (R, S, D, …) or 0 if unreadable. */
char tthread_proc_state(struct tthread *t);
/* The same, for every tick, with as few reads as will do. With a switch ring (run_ring.h), none
 * while the thread runs or sleeps on: running is its newest record (switched in, or out while
 * runnable), and a thread that slept at the last look and has not been switched since is in the
 * state /proc gave then. Without one, or when it has slept again since: a thread that was not
 * running at the last look and has not been on a CPU since (its schedstat figures unchanged:
 * 0.8 µs to read, against 3.9 µs for stat, which formats ~50 fields) is in the state it was; only
 * the others are asked their state, and a thread that was running is asked its state alone (its
 * run time is read when it leaves R). which_sleep false: the caller tells only running from not
 * (it samples running threads alone), and a thread asleep by its switch records is 'S' unread. */
char tthread_state_now(struct tthread *t, bool which_sleep);
/* Is the process still there? */
bool tracer_alive(const struct tracer *tr);

#endif
