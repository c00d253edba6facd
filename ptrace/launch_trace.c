/* launch_trace.c — holding a launched program under ptrace until V8 is mapped. */
#include "launch_trace.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "../util/clock.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

enum {
	STEP_NS = 2 * 1000 * 1000,            /* how long the program runs between looks */
	STEPPING_NS = 3000ULL * 1000 * 1000,  /* how long after an execve V8 may take to appear */
};

enum stop { STOPPED, AT_EXEC, EXITED };

int launch_trace_seize(pid_t pid)
{
	return ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)PTRACE_O_TRACEEXEC) == 0 ? 0 : -errno;
}

void launch_trace_let_go(pid_t pid)
{
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
}

/* Wait for the next stop the caller asked for (an interrupt, or an execve when `to_exec`),
 * delivering the program's own signals on the way. */
static enum stop wait_stop(pid_t pid, bool to_exec, int *status)
{
	for (;;) {
		int st;
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			*status = -1;
			return EXITED;
		}
		if (!WIFSTOPPED(st)) {
			*status = st;
			return EXITED;
		}
		int event = (unsigned)st >> 16;
		if (event == PTRACE_EVENT_EXEC)
			return AT_EXEC;
		if (event == PTRACE_EVENT_STOP && !to_exec)
			return STOPPED;
		/* its own signal (delivered as usual), or a stop nobody asked for */
		int sig = event == 0 ? WSTOPSIG(st) : 0;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}

/* Let the program run for STEP_NS, then stop it again. */
static enum stop step(pid_t pid, int *status)
{
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	struct timespec ts = {0, STEP_NS};
	nanosleep(&ts, NULL);
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) != 0 && errno == ESRCH)
		return wait_stop(pid, true, status); /* gone: collect its exit */
	return wait_stop(pid, false, status);
}

bool launch_trace_until_node(pid_t pid, struct node_scan *ns, int *status)
{
	if (wait_stop(pid, true, status) == EXITED)
		return false;
	uint64_t stepping_until = now_ns() + STEPPING_NS;
	for (;;) {
		if (node_scan_pid(ns, pid))
			return true;
		enum stop s;
		if (now_ns() < stepping_until) {
			s = step(pid, status);
		} else {
			ptrace(PTRACE_CONT, pid, NULL, NULL);
			s = wait_stop(pid, true, status);
		}
		if (s == EXITED)
			return false;
		if (s == AT_EXEC)
			stepping_until = now_ns() + STEPPING_NS;
	}
}
