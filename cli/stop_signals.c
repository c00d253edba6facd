/* stop_signals.c — stop requests and their forwarding to a launched program. */
#include "stop_signals.h"

#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../util/clock.h"

int stop_signals_init(struct stop_signals *s, pid_t child)
{
	s->fd = -1;
	s->child = child;
	s->last = 0;
	s->forwarded = s->copies = 0;
	s->usr1 = s->winch = 0;
	s->parent = getppid();
	s->tty_signo = 0;
	s->tty_at_ns = 0;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGWINCH);
	if (child)
		sigaddset(&set, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -errno;
	s->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return s->fd < 0 ? -errno : 0;
}

void stop_signals_close(struct stop_signals *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

bool stop_signals_check(struct stop_signals *s)
{
	bool stop = false;
	struct signalfd_siginfo si;
	while (s->fd >= 0 && read(s->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGWINCH) {
			*(si.ssi_signo == SIGUSR1 ? &s->usr1 : &s->winch) += 1;
			continue;
		}
		s->last = (int)si.ssi_signo;
		if (!s->child) {
			stop = true;
			continue;
		}
		/* sent by a process (kill), not by the terminal: the program did not get it, unless
		 * it is a launcher's copy of the terminal's */
		bool from_process = si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE;
		uint64_t now = now_ns();
		if (!from_process) {
			s->tty_signo = (int)si.ssi_signo;
			s->tty_at_ns = now;
		} else if (stop_signal_is_copy(s, (int)si.ssi_signo, (pid_t)si.ssi_pid, now)) {
			s->copies++;
		} else if ((pid_t)si.ssi_pid != s->child && kill(s->child, (int)si.ssi_signo) == 0) {
			s->forwarded++;
		}
	}
	return stop;
}

bool stop_signal_is_copy(const struct stop_signals *s, int signo, pid_t from, uint64_t now_ns)
{
	return from == s->parent && s->parent > 1 && signo == s->tty_signo &&
	       now_ns - s->tty_at_ns < STOP_COPY_WINDOW_NS;
}
