/* launch.h — launch mode (`v8walk [options] -- PROGRAM ARGS...`): the program is forked and held
 * before its execve, blocked on a pipe, until the sampler is ready for it (ptrace: seized, so
 * that it stops at its first instruction; eBPF: its pid in the kernel's filter). Nothing of the
 * program runs before that. If v8walk dies while holding it, the pipe closes and the held child
 * exits without running the program. */
#ifndef V8WALK_LAUNCH_H
#define V8WALK_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "../util/strbuf.h"
#include "exit_codes.h"

struct launch {
	pid_t pid;
	int go_fd;   /* write end: one byte lets the child call execve */
	int err_fd;  /* read end: the errno of a failed execve; EOF once execve succeeded */
	const char *program;
};

/* Fork and hold; false with the reason in *why. */
bool launch_prepare(struct launch *l, char *const argv[], struct strbuf *why);
/* Let it execve. Returns 0 when the program started, else the errno of execve (the child then
 * exits with 127, and the caller reaps it). */
int launch_release(struct launch *l);
/* Setup failed: end and reap the child, either still held before execve or (ptrace) stopped
 * at the program's first instruction — either way the program never ran. */
void launch_abort(struct launch *l);
/* launch_release failed with err: say so ("cannot run PROGRAM: …"), reap the child, and return
 * the exit code a shell gives (127 not found, 126 not runnable). */
int launch_failed(struct launch *l, int err);
/* Wait for the program to end; its exit code as a shell gives it. */
int launch_wait(struct launch *l);
/* 0-255 for an exit, 128 + N for death by signal N. */
int shell_exit_code(int wait_status);

#endif
