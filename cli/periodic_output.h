/* periodic_output.h — profiles that keep flowing while sampling goes on: on SIGUSR1 the profile
 * so far is written to -o (sampling continues, nothing is reset), and with --period SEC each
 * period's samples go to a file of their own (-o's %n and strftime fields), the aggregation being
 * emptied after each file so that memory stays flat. The sampling loop (run_loop.h) calls
 * periodic_output_due through live_hooks.h, and periodic_output_finish is called at the end. */
#ifndef V8WALK_PERIODIC_OUTPUT_H
#define V8WALK_PERIODIC_OUTPUT_H

#include <stdint.h>
#include <time.h>

#include "../profile/profile.h"
#include "../util/strbuf.h"
#include "options.h"
#include "stop_signals.h"

/* Fill in what a profile says about the run before it is written (profile_meta_fill, the
 * sampled processes' modules) for samples from start_ns to end_ns. */
typedef void (*describe_fn)(void *ctx, const struct options *o, struct profile *p, uint64_t start_ns,
			    uint64_t end_ns);
/* At the end of period `seq`, before its profile is written or exported: the sampler checks each
 * process's samples against its CPU time (cpu_share.h), warns on stderr, and adds a short note for
 * the export's period line (e.g. "process 42 got 13 of ~300 samples due"). */
typedef void (*period_check_fn)(void *ctx, unsigned long seq, struct strbuf *note);

struct periodic_output {
	const struct options *o;
	struct profile *prof;          /* the aggregation the sink fills */
	const struct stop_signals *sig;
	describe_fn describe;
	void *describe_ctx;
	period_check_fn check;         /* NULL: none */
	unsigned long usr1_done;       /* SIGUSR1s answered */
	uint64_t period_ns;            /* 0: one profile for the whole run */
	uint64_t period_start_ns;
	time_t period_start_wall;
	unsigned long seq;             /* the current period's number (%n), from 1 */
	unsigned long files;           /* profiles written */
	int rc;                        /* 1 once a write failed */
};

enum { PERIODIC_CHECK_NS = 100 * 1000 * 1000 }; /* how often the loops call periodic_output_due */

void periodic_output_init(struct periodic_output *po, const struct options *o, struct profile *prof,
			  const struct stop_signals *sig, describe_fn describe, void *ctx,
			  uint64_t start_ns);
/* Write what is due at `now` (a SIGUSR1 that arrived, a period that ended). Always false (the
 * run goes on). */
bool periodic_output_due(void *ctx, uint64_t now_ns);
/* The run ended at end_ns: write the whole profile, or the last period's. Returns 0 or 1. */
int periodic_output_finish(struct periodic_output *po, uint64_t end_ns);

#endif
