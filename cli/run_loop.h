/* run_loop.h — the one sampling loop of the CLI, for either sampler (sampling/backend.h): it steps
 * the backend, waits on the backend's file descriptor and the stop signals, makes the periodic
 * calls (SIGUSR1, --period, `top`: live_hooks.h), and ends on --duration, SIGINT/SIGTERM/SIGHUP
 * (stop_signals.h: in launch mode they are passed on, and the program decides), the user
 * quitting `top`, or when no target is left to sample. */
#ifndef V8WALK_RUN_LOOP_H
#define V8WALK_RUN_LOOP_H

#include "../sampling/backend.h"
#include "live_hooks.h"
#include "stop_signals.h"

/* Run the backend from now until the end, then let it take in what is on its way (ops->end). */
void run_loop(const struct sampler_backend *b, double duration_s, struct stop_signals *stop,
	      struct live_hooks *lh);

#endif
