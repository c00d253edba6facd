/* stop_signals.h — SIGINT, SIGTERM and SIGHUP as events (a signalfd), so that v8walk always ends
 * cleanly: output written, every thread detached. SIGUSR1 (write the profile so far) and SIGWINCH
 * (the terminal was resized: `top`) arrive the same way and are counted, never stop the run. In launch mode the program v8walk started is
 * the one to decide, as under a shell: a terminal's Ctrl-C reaches it by itself (same process
 * group), a signal sent to v8walk by another process is passed on to it, and v8walk samples on
 * until it exits (SIGQUIT is handled the same way). */
#ifndef V8WALK_STOP_SIGNALS_H
#define V8WALK_STOP_SIGNALS_H

#include <stdbool.h>
#include <sys/types.h>

struct stop_signals {
	int fd;
	pid_t child;  /* launch mode: the program; 0 otherwise */
	int last;     /* the last signal received (0 = none) */
	unsigned long forwarded;
	unsigned long usr1;   /* SIGUSR1 received so far */
	unsigned long winch;  /* SIGWINCH received so far */
};

/* Block the signals and open the signalfd; returns 0 or -errno. */
int stop_signals_init(struct stop_signals *s, pid_t child);
void stop_signals_close(struct stop_signals *s);
/* Read what arrived; true when v8walk should stop now. */
bool stop_signals_check(struct stop_signals *s);

#endif
