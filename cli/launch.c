/* launch.c — starting the program of launch mode, held before its execve. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/config_file.h"
#include "../util/text_escape.h"
#include "user_groups.h"

static bool parse_id(const char *s, unsigned long *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out < 0xffffffffUL;
}

/* The groups of `user` from /etc/passwd and /etc/group, when the user is the one of SUDO_UID. */
static void user_groups_of(const char *user, struct launch_as *as)
{
	struct strbuf passwd, group;
	sb_init(&passwd);
	sb_init(&group);
	uid_t uid;
	gid_t gid;
	if (config_file_read("/etc/passwd", USER_DB_MAX, &passwd) && passwd.len &&
	    passwd_find(passwd.s, passwd.len, user, &uid, &gid) && uid == as->uid &&
	    config_file_read("/etc/group", USER_DB_MAX, &group)) {
		int n = group_list(group.s ? group.s : "", group.len, user, as->gid, as->groups,
				   (int)(sizeof(as->groups) / sizeof(as->groups[0])));
		if (n > 0)
			as->ngroups = n;
	}
	sb_free(&passwd);
	sb_free(&group);
}

bool launch_as_for(struct launch_as *as, const sigset_t *given_mask,
		   const struct rlimit *given_nofile, bool keep_root, struct strbuf *why)
{
	memset(as, 0, sizeof(*as));
	as->sigmask = *given_mask;
	as->nofile = *given_nofile;
	const char *su = getenv("SUDO_UID");
	if (keep_root || geteuid() != 0 || !su)
		return true;
	unsigned long uid, gid;
	if (!parse_id(su, &uid) || !parse_id(getenv("SUDO_GID"), &gid)) {
		sb_printf(why, "SUDO_UID/SUDO_GID do not hold user and group ids; run the program as "
			       "root with --keep-root, or unset SUDO_UID");
		return false;
	}
	if (uid == 0)
		return true; /* root ran sudo: nothing to drop */
	as->drop = true;
	as->uid = (uid_t)uid;
	as->gid = (gid_t)gid;
	/* initgroups' list, computed here: the child may only make async-signal-safe calls */
	as->groups[0] = as->gid; /* unknown user (or too many groups): its primary group only */
	as->ngroups = 1;
	const char *user = getenv("SUDO_USER");
	if (user)
		user_groups_of(user, as);
	return true;
}

/* In the child: wait for the go byte, take the identity and signal mask the program gets, then
 * execve; only async-signal-safe calls. */
static void __attribute__((noreturn)) child(int go, int err, char *const argv[],
					     const struct launch_as *as)
{
	/* undo v8walk's 1 ns timer slack and raised descriptor limit: the program gets what
	 * v8walk was given (a failure leaves the raised one, which is still within the hard limit) */
	prctl(PR_SET_TIMERSLACK, 0UL, 0, 0, 0);
	setrlimit(RLIMIT_NOFILE, &as->nofile);
	/* and none of the signals v8walk blocks to read them from a signalfd */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	char c;
	ssize_t r;
	do
		r = read(go, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(EXIT_NOT_FOUND); /* v8walk gave up (or died): never run the program */
	int e = 0;
	if (as->drop && (setgroups((size_t)as->ngroups, as->groups) != 0 || setgid(as->gid) != 0 ||
			 setuid(as->uid) != 0))
		e = errno;
	if (!e) {
		sigprocmask(SIG_SETMASK, &as->sigmask, NULL);
		execvp(argv[0], argv);
		e = errno;
	}
	ssize_t w = write(err, &e, sizeof(e));
	(void)w;
	_exit(EXIT_NOT_FOUND);
}

bool launch_prepare(struct launch *l, char *const argv[], const struct launch_as *as,
		    struct strbuf *why)
{
	int go[2], err[2];
	memset(l, 0, sizeof(*l));
	l->program = argv[0];
	l->go_fd = l->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) != 0) {
		sb_printf(why, "cannot start %s: pipe: %s", argv[0], strerror(errno));
		return false;
	}
	if (pipe2(err, O_CLOEXEC) != 0) {
		sb_printf(why, "cannot start %s: pipe: %s", argv[0], strerror(errno));
		close(go[0]);
		close(go[1]);
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		sb_printf(why, "cannot start %s: fork: %s", argv[0], strerror(errno));
		close(go[0]), close(go[1]), close(err[0]), close(err[1]);
		return false;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child(go[0], err[1], argv, as);
	}
	close(go[0]);
	close(err[1]);
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = err[0];
	return true;
}

int launch_release(struct launch *l)
{
	char c = 1;
	ssize_t w;
	do
		w = write(l->go_fd, &c, 1);
	while (w < 0 && errno == EINTR);
	close(l->go_fd);
	l->go_fd = -1;
	int e = 0;
	ssize_t r;
	do
		r = read(l->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (w != 1)
		return EPIPE;
	return r == (ssize_t)sizeof(e) ? e : 0;
}

void launch_abort(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd); /* the child reads EOF and exits without running the program */
	else if (l->pid > 0)
		kill(l->pid, SIGKILL); /* held at its first instruction: it has not run yet */
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	if (l->pid > 0) {
		int st;
		while (waitpid(l->pid, &st, __WALL) < 0 && errno == EINTR)
			;
	}
	l->pid = 0;
}

int launch_failed(struct launch *l, int err)
{
	fprintf_text(stderr, "v8walk: cannot run %s: %s\n", l->program, strerror(err));
	launch_wait(l);
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

int launch_wait(struct launch *l)
{
	int st = 0;
	pid_t r;
	do
		r = waitpid(l->pid, &st, 0);
	while (r < 0 && errno == EINTR);
	return r == l->pid ? shell_exit_code(st) : EXIT_ERROR;
}

int shell_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return EXIT_SIGNAL_BASE + WTERMSIG(wait_status);
	return EXIT_ERROR;
}
