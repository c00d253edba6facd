/* top_view.h — `v8walk top`: the live view of where the sampled processes spend their time. On a
 * terminal: the alternate screen in non-canonical mode, redrawn every --interval and on every key
 * (1-4 sort, t thread, l line, n native own time, w window, space pause, q quit) and resize;
 * the terminal is given back as it was by top_view_close, which every end of the run reaches
 * (q, Ctrl-C/SIGTERM through the signalfd, the target's exit, an error). With stdout not a
 * terminal: one plain table per interval, and one for the whole run at the end (like top -b).
 * The rows come from profile/top_table.h; the modes give the header's figures (top_status). */
#ifndef V8WALK_TOP_VIEW_H
#define V8WALK_TOP_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <termios.h>

#include "../profile/top_table.h"
#include "../util/strbuf.h"
#include "options.h"
#include "stop_signals.h"

/* What the sampler says about the run so far (cumulative). */
struct top_status {
	const char *sampler;   /* "ptrace", "eBPF" */
	unsigned long threads; /* threads seen */
	unsigned long samples, errors, missed; /* missed: due but not taken (ptrace), lost (eBPF) */
	double max_lag_ms;
};
typedef void (*top_status_fn)(void *ctx, struct top_status *st);

struct top_view {
	const struct options *o;
	const struct profile *prof;
	const struct stop_signals *sig;
	top_status_fn status;
	void *status_ctx;
	char title[512];       /* "pid 4242: node server.js" */
	char runtime[160];     /* "Node v20.20.2 (V8 11.3.244.8)" */
	bool tty;              /* a terminal view (else batch tables) */
	bool keys;             /* stdin is a terminal: keys are read from it */
	bool raw;              /* the terminal's settings were changed (saved holds them) */
	struct termios saved;
	struct top_table table;
	struct top_query q;
	uint64_t interval_ns, start_ns, next_ns, shown_ns; /* shown_ns: when the window ended */
	uint64_t window_ns;    /* length of the window shown */
	unsigned long samples_then;  /* status.samples at the previous refresh */
	double cpu_then;       /* v8walk's CPU seconds at the previous refresh */
	double rate, cpu_pct;  /* achieved rate and own CPU over the last interval */
	unsigned long winch_seen;
	bool paused, window_all;
	size_t thread_pick;    /* 0: all threads; k: the k-th of the threads list */
	struct strbuf screen;
};

/* Enter the view (terminal settings, alternate screen); `title` names the target. */
void top_view_open(struct top_view *tv, const struct options *o, const struct profile *prof,
		   const struct stop_signals *sig, top_status_fn status, void *status_ctx,
		   const char *title, const char *runtime, uint64_t start_ns);
/* Keys, resizes and the refresh that are due; true when the user asked to quit. */
bool top_view_due(struct top_view *tv, uint64_t now_ns);
/* Give the terminal back (batch: print the whole run's table). Safe to call twice. */
void top_view_close(struct top_view *tv);
/* The title of a pid: "pid N: its command line" (control characters replaced). */
void top_view_title_of(pid_t pid, char *out, size_t cap);

enum { TOP_KEYS_NS = 50 * 1000 * 1000 }; /* how often the loops call top_view_due */

#endif
