/* stop_signals.h — SIGINT, SIGTERM and SIGHUP as events (a signalfd), so that v8walk always ends
 * cleanly: output written, every thread detached. SIGUSR1 (write the profile so far) and SIGWINCH
 * (the terminal was resized: `top`) arrive the same way and are counted, never stop the run. In launch mode the program v8walk started is
 * the one to decide, as under a shell: a terminal's Ctrl-C reaches it by itself (same process
 * group), a signal sent to v8walk by another process is passed on to it, and v8walk samples on
 * until it exits (SIGQUIT is handled the same way). A launcher that runs v8walk and passes its
 * own signals on (the npm package's) also gets the terminal's Ctrl-C, and sends v8walk a copy a
 * moment after the terminal's: a signal from v8walk's parent within STOP_COPY_WINDOW_NS of the
 * same signal from the terminal is that copy, and is not passed on to the program again. */
#ifndef V8WALK_STOP_SIGNALS_H
#define V8WALK_STOP_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define STOP_COPY_WINDOW_NS 1000000000ull

struct stop_signals {
	int fd;
	pid_t child;  /* launch mode: the program; 0 otherwise */
	int last;     /* the last signal received (0 = none) */
	unsigned long forwarded;
	unsigned long copies;   /* a launcher's copies of the terminal's signals, not passed on */
	pid_t parent;           /* v8walk's parent when it started */
	int tty_signo;          /* the last signal the kernel sent (a terminal's), 0 = none */
	uint64_t tty_at_ns;     /* when it was read */
	unsigned long usr1;   /* SIGUSR1 received so far */
	unsigned long winch;  /* SIGWINCH received so far */
};

/* Block the signals and open the signalfd; returns 0 or -errno. */
int stop_signals_init(struct stop_signals *s, pid_t child);
void stop_signals_close(struct stop_signals *s);
/* Read what arrived; true when v8walk should stop now. */
bool stop_signals_check(struct stop_signals *s);
/* Is signal `signo` from process `from`, read at now_ns, the copy of the terminal's that v8walk's
 * parent passes on? (pure: the decision of stop_signals_check) */
bool stop_signal_is_copy(const struct stop_signals *s, int signo, pid_t from, uint64_t now_ns);

#endif
