/* launch.h — launch mode (`v8walk [options] -- PROGRAM ARGS...`): the program is forked and held
 * before its execve, blocked on a pipe, until the sampler is ready for it (ptrace: seized, so
 * that it stops at its first instruction; eBPF: its pid in the kernel's filter). Nothing of the
 * program runs before that. If v8walk dies while holding it, the pipe closes and the held child
 * exits without running the program. */
#ifndef V8WALK_LAUNCH_H
#define V8WALK_LAUNCH_H

#include <signal.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../util/strbuf.h"
#include "exit_codes.h"

/* Who the program runs as, and with which signal mask. */
struct launch_as {
	sigset_t sigmask;    /* the mask v8walk itself was given (not the one it samples with) */
	struct rlimit nofile; /* the descriptor limit it was given (not the one it raised) */
	bool drop;           /* run as uid/gid with groups (v8walk runs under sudo as root) */
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int ngroups;
};

struct launch {
	pid_t pid;
	int go_fd;   /* write end: one byte lets the child call execve */
	int err_fd;  /* read end: the errno of a failed execve; EOF once execve succeeded */
	const char *program;
};

/* Under sudo (root, SUDO_UID/SUDO_GID set, not keep_root) the program runs as the user who ran
 * sudo, with that user's groups (as py-spy does): *as says so. false with the reason in *why when
 * the SUDO_* variables are malformed. given_mask: the mask v8walk was started with. */
bool launch_as_for(struct launch_as *as, const sigset_t *given_mask,
		   const struct rlimit *given_nofile, bool keep_root, struct strbuf *why);
/* Fork and hold; false with the reason in *why. The child takes *as's identity and signal mask
 * just before its execve. */
bool launch_prepare(struct launch *l, char *const argv[], const struct launch_as *as,
		    struct strbuf *why);
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
