/* session.h — everything a live mode holds while it works on a process: the checked target, the
 * tracer, the stack walker and the sampler, opened and closed in one place. */
#ifndef V8WALK_SESSION_H
#define V8WALK_SESSION_H

#include "../util/intern.h"
#include "../ptrace/sampler.h"
#include "../walker/stackwalk.h"
#include "../ptrace/tracer.h"
#include "../sourcemap/store.h"
#include "options.h"
#include "../sampling/cpu_share.h"
#include "../sampling/target.h"

struct live_session {
	struct live_target tg;
	struct tracer tr;
	struct intern strings;
	struct stackwalk sw;
	struct perfmap perfmap; /* names JIT code the heap cannot (node --perf-basic-prof) */
	struct sampler s;
	bool opened, attached;
	bool refused;    /* opening or attaching failed: the kernel refused access */
	struct sm_store sourcemaps; /* unless --no-source-maps (sw.sourcemaps is NULL then) */
	/* the target's CPU time and samples when sampling began, and when the --period began */
	struct cpu_mark run_mark, period_mark;
};

/* Check the target and prepare (nothing touches it yet); false with the reason in *why. */
bool session_open_why(struct live_session *ss, const struct options *o,
		      const struct sampler_opts *so, sample_sink_fn sink, void *sink_ctx,
		      struct strbuf *why);
/* The same, printing the reason. */
bool session_open(struct live_session *ss, const struct options *o, const struct sampler_opts *so,
		  sample_sink_fn sink, void *sink_ctx);
/* The exit status after session_open or session_attach failed: EXIT_PERMISSION when the kernel
 * refused access, else EXIT_ERROR. */
int session_failed(const struct live_session *ss);
/* Seize every thread; prints why not and returns false. */
bool session_attach(struct live_session *ss);
/* Seize every thread; returns 0 or -errno without printing (the caller may fall back). */
int session_try_attach(struct live_session *ss);
/* Launch mode: the target is a child already seized and held at its execve (see tracer_adopt). */
void session_adopt(struct live_session *ss);
/* Detach from every thread now (the target runs free while we write output). */
void session_detach(struct live_session *ss);
/* Detach (if attached) and free everything. */
void session_close(struct live_session *ss);

#endif
