/* session.c — opening, attaching and closing a live session. */
#include "session.h"

#include <string.h>

#include "../ptrace/ptrace_backend.h"
#include "../sampling/diagnose.h"
#include "modes.h"

bool session_open_why(struct live_session *ss, const struct options *o,
		      const struct sampler_opts *so, sample_sink_fn sink, void *sink_ctx,
		      struct strbuf *why)
{
	memset(ss, 0, sizeof(*ss));
	struct target_opts to = target_opts_of(o);
	if (!live_target_open(&ss->tg, o->pid, &to, why)) {
		ss->refused = ss->tg.refused;
		live_target_close(&ss->tg);
		return false;
	}
	if (tracer_init_signals(&ss->tr) != 0) {
		live_target_close(&ss->tg);
		sb_add(why, "cannot set up signal handling");
		return false;
	}
	intern_init(&ss->strings);
	intern_set_budget(&ss->strings, INTERN_TARGET_BUDGET, INTERN_OVERFLOW_NAME);
	stackwalk_init(&ss->sw, &ss->tg.as, &ss->tg.rt, &ss->strings, to.full_native_names);
	ss->sw.v8_self = to.v8_self;
	ss->sw.async.on = to.async;
	ss->sw.memo_on = true; /* a live process: its stacks are walked again and again */
	perfmap_init(&ss->perfmap, o->pid, &ss->strings);
	ss->sw.perfmap = &ss->perfmap;
	if (!o->no_source_maps) {
		sm_store_init_live(&ss->sourcemaps, &ss->strings, &ss->sw.scripts, &ss->tg.rt.L,
				   ss->tg.pid);
		ss->sw.sourcemaps = &ss->sourcemaps;
	}
	sampler_init(&ss->s, o->pid, so, &ss->tr, &ss->sw, &ss->tg.as, &ss->strings, sink, sink_ctx);
	ss->opened = true;
	if (so->stack_copy == STACK_COPY_KERNEL && !ss->s.kcopy.on) {
		sb_printf(why, "--stack-copy kernel: the kernel cannot copy the stacks: %s", ss->s.kcopy.why_off);
		session_close(ss);
		return false;
	}
	return true;
}

bool session_open(struct live_session *ss, const struct options *o, const struct sampler_opts *so,
		  sample_sink_fn sink, void *sink_ctx)
{
	struct strbuf why;
	sb_init(&why);
	bool ok = session_open_why(ss, o, so, sink, sink_ctx, &why);
	if (!ok)
		fail_msg(why.s);
	sb_free(&why);
	return ok;
}

int session_failed(const struct live_session *ss)
{
	return ss->refused ? EXIT_PERMISSION : EXIT_ERROR;
}

int session_try_attach(struct live_session *ss)
{
	int err = tracer_attach(&ss->tr, ss->tg.pid, sampler_on_stop, &ss->s);
	ss->attached = err == 0;
	return err;
}

bool session_attach(struct live_session *ss)
{
	int err = session_try_attach(ss);
	if (err) {
		struct strbuf msg;
		sb_init(&msg);
		ss->refused = diagnose_access(ss->tg.pid, -err, &msg);
		fail_msg(msg.s);
		sb_free(&msg);
		return false;
	}
	return true;
}

void session_adopt(struct live_session *ss)
{
	tracer_adopt(&ss->tr, ss->tg.pid, sampler_on_stop, &ss->s);
	ss->attached = true;
}

void session_detach(struct live_session *ss)
{
	if (ss->attached)
		ptrace_backend_ops.close(&ss->s);
	ss->attached = false;
}

void session_close(struct live_session *ss)
{
	if (!ss->opened)
		return;
	session_detach(ss);
	sampler_free(&ss->s);
	tracer_free(&ss->tr);
	if (ss->sw.sourcemaps)
		sm_store_free(&ss->sourcemaps);
	stackwalk_free(&ss->sw);
	perfmap_free(&ss->perfmap);
	intern_free(&ss->strings);
	live_target_close(&ss->tg);
	ss->opened = ss->attached = false;
}
