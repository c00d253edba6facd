/* mode_record.c — the ptrace sampler: attach to a node process (or start one: launch mode),
 * sample it until the duration ends, a signal arrives or it exits, detach, and write the profile
 * (tree or folded stacks). In --mode auto, a refused attach hands over to the eBPF sampler. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"
#include "../sampling/diagnose.h"
#include "launch.h"
#include "../ptrace/launch_trace.h"
#include "../ptrace/ptrace_backend.h"
#include "modes.h"
#include "live_hooks.h"
#include "run_loop.h"
#include "../util/clock.h"
#include "../profile/profile.h"
#include "session.h"
#include "stop_signals.h"
#include "summary.h"
#include "version_info.h"

static void announce(const struct options *o, const struct live_session *ss, pid_t pid)
{
	if (o->quiet)
		return;
	struct strbuf d;
	sb_init(&d);
	v8_runtime_describe(&ss->tg.rt, &d);
	if (o->command)
		fprintf_text(stderr, "v8walk: started %s (process %d, %s); sampling it at %g Hz until it "
				"exits\n", o->command[0], (int)pid, d.s, o->rate_hz);
	else
		fprintf_text(stderr, "v8walk: sampling process %d (%s) at %g Hz%s; Ctrl-C to stop\n",
			(int)pid, d.s, o->rate_hz, o->duration_s > 0 ? "" : " until interrupted");
	sb_free(&d);
}

/* What a profile of this session says about the run (periodic_output.h). */
static void describe_session(void *ctx, const struct options *o, struct profile *p,
			     uint64_t start_ns, uint64_t end_ns)
{
	struct live_session *ss = ctx;
	profile_meta_fill(o, &ss->tg.rt, start_ns, end_ns, &p->meta);
	profile_add_modules(p, ss->tg.pid, &ss->tg.as);
}

/* The target's samples so far. */
static unsigned long samples_so_far(struct live_session *ss)
{
	struct run_stats st;
	ptrace_backend(&ss->s).ops->stats(&ss->s, &st);
	return st.samples;
}

/* The target's samples over the period that ends, against its CPU time (cpu_share.h). */
static void check_period(void *ctx, unsigned long seq, struct strbuf *note)
{
	struct live_session *ss = ctx;
	char when[48];
	snprintf(when, sizeof(when), "in period %lu", seq);
	struct cpu_mark now;
	cpu_mark_take(&now, ss->tg.pid, samples_so_far(ss));
	cpu_share_warn(stderr, &ss->period_mark, &now, ss->tg.pid, ss->tg.comm, ss->s.opts.rate_hz,
		       when, note);
	ss->period_mark = now;
}

/* Sample an attached (or adopted) session, detach, write the profile (or the last period's);
 * `top` shows it while it runs. */
static int sample_and_write(const struct options *o, struct live_session *ss,
			    struct live_hooks *lh, struct stop_signals *stop)
{
	announce(o, ss, ss->tg.pid);
	uint64_t start = now_ns();
	lh->po.period_start_ns = start;
	if (!o->quiet)
		lh->po.check = check_period;
	cpu_mark_take(&ss->run_mark, ss->tg.pid, 0);
	ss->period_mark = ss->run_mark;
	struct sampler_backend b = ptrace_backend(&ss->s);
	if (o->top) {
		char title[512];
		struct strbuf rt;
		sb_init(&rt);
		v8_runtime_describe(&ss->tg.rt, &rt);
		top_view_title_of(ss->tg.pid, title, sizeof(title));
		live_hooks_open_top(lh, &b, title, rt.s, start);
		sb_free(&rt);
	}
	run_loop(&b, o->duration_s, stop, lh);
	struct cpu_mark end;
	cpu_mark_take(&end, ss->tg.pid, samples_so_far(ss));
	session_detach(ss);
	int rc = live_hooks_finish(lh, ss->s.st.end_ns);
	if (!o->quiet) {
		if (getenv("V8WALK_STATS"))
			print_ptrace_cache_stats(stderr, &ss->s);
		struct run_stats st;
		b.ops->stats(b.ctx, &st);
		print_run_summary(stderr, &st);
		print_ptrace_notes(stderr, &ss->s);
		print_limits(stderr, ss->tg.pid, &ss->perfmap, &ss->sw.scripts, &ss->strings);
		cpu_share_warn(stderr, &ss->run_mark, &end, ss->tg.pid, ss->tg.comm, o->rate_hz,
			       "over the run", NULL);
		if (ss->sw.sourcemaps)
			sm_store_summary(ss->sw.sourcemaps, stderr);
	}
	return rc;
}

static void sampler_opts_for(const struct options *o, struct sampler_opts *so)
{
	*so = (struct sampler_opts){.rate_hz = o->rate_hz,
				    .idle = o->idle,
				    .stack_chunk = (size_t)o->stack_kb << 10,
				    .stop_limit_ns = (uint64_t)o->stop_limit_us * 1000,
				    .stack_copy = o->stack_copy};
}

static int record_pid(const struct options *o)
{
	struct stop_signals stop;
	stop_signals_init(&stop, 0);
	struct sampler_opts so;
	sampler_opts_for(o, &so);
	struct profile prof;
	struct live_session ss;
	struct live_hooks lh = {.top = false};
	periodic_output_init(&lh.po, o, &prof, &stop, describe_session, &ss, 0);
	if (!session_open(&ss, o, &so, profile_sink, &prof)) {
		stop_signals_close(&stop);
		return session_failed(&ss);
	}
	profile_init(&prof, &ss.strings, line_mode_of(o));
	int rc = EXIT_ERROR;
	int err = session_try_attach(&ss);
	if (err == 0) {
		rc = sample_and_write(o, &ss, &lh, &stop);
	} else {
		struct strbuf why;
		sb_init(&why);
		bool fall_back = o->sampler == SAMPLER_AUTO && err != -ESRCH && !o->idle;
		if (fall_back)
			sb_add(&why, "ptrace is refused: ");
		bool refused = diagnose_access(o->pid, -err, &why);
		profile_free(&prof);
		session_close(&ss);
		stop_signals_close(&stop);
		rc = fall_back ? mode_bpf(o, why.s, refused) : fail_access(why.s, refused);
		sb_free(&why);
		return rc;
	}
	profile_free(&prof);
	session_close(&ss);
	stop_signals_close(&stop);
	return rc;
}

/* Launch mode, once the program started: when V8 is mapped (launch_trace.h), take the session
 * over from the held stop and sample the program until it exits. Returns the exit code to pass
 * on. */
static int follow_launched(const struct options *o, struct launch *l, struct stop_signals *stop)
{
	struct node_scan ns;
	node_scan_init(&ns);
	int status = 0;
	bool node = launch_trace_until_node(l->pid, &ns, &status);
	node_scan_free(&ns);
	if (!node) {
		fprintf_text(stderr, "v8walk: %s never ran node (no V8 was ever mapped), so nothing was "
				"sampled\n", l->program);
		return status < 0 ? EXIT_ERROR : shell_exit_code(status);
	}
	struct options lo = *o;
	lo.pid = l->pid;
	struct sampler_opts so;
	sampler_opts_for(o, &so);
	struct profile prof;
	struct live_session ss;
	struct live_hooks lh = {.top = false};
	periodic_output_init(&lh.po, &lo, &prof, stop, describe_session, &ss, 0);
	struct strbuf why;
	sb_init(&why);
	if (!session_open_why(&ss, &lo, &so, profile_sink, &prof, &why)) {
		/* node, but not one v8walk can read: it runs on, untraced */
		fprintf_text(stderr, "v8walk: %s; it runs on without being sampled\n", why.s);
		sb_free(&why);
		launch_trace_let_go(l->pid);
		return launch_wait(l);
	}
	sb_free(&why);
	profile_init(&prof, &ss.strings, line_mode_of(o));
	session_adopt(&ss);
	int rc = sample_and_write(&lo, &ss, &lh, stop);
	/* sampling ended first (--duration): the program runs on; wait for it */
	int code = ss.s.st.target_exited ? shell_exit_code(ss.s.st.exit_status) : launch_wait(l);
	profile_free(&prof);
	session_close(&ss);
	return rc ? rc : code;
}

/* Launch mode: seize the held child (PTRACE_O_TRACEEXEC: it stops at its first instruction),
 * then let it execve. */
static int record_launch(const struct options *o)
{
	struct strbuf why;
	sb_init(&why);
	struct launch l;
	struct launch_as as;
	if (!launch_as_for(&as, &o->given_sigmask, &o->given_nofile, o->keep_root, &why) ||
	    !launch_prepare(&l, o->command, &as, &why)) {
		int rc = fail_msg(why.s);
		sb_free(&why);
		return rc;
	}
	int err = launch_trace_seize(l.pid);
	if (err) {
		sb_printf(&why, "cannot trace the program (%s)", strerror(-err));
		launch_abort(&l);
		bool refused = err == -EPERM || err == -EACCES;
		int rc = o->sampler == SAMPLER_AUTO ? mode_bpf(o, why.s, refused) : fail_access(why.s, refused);
		sb_free(&why);
		return rc;
	}
	struct stop_signals stop;
	stop_signals_init(&stop, l.pid);
	int code;
	err = launch_release(&l);
	if (err) {
		code = launch_failed(&l, err);
	} else {
		code = follow_launched(o, &l, &stop);
	}
	stop_signals_close(&stop);
	sb_free(&why);
	return code;
}

int mode_record(const struct options *o)
{
	return o->command ? record_launch(o) : record_pid(o);
}

int mode_version_info(const struct options *o)
{
	struct strbuf msg;
	sb_init(&msg);
	struct live_target tg;
	int rc = EXIT_OK;
	struct target_opts to = target_opts_of(o);
	if (live_target_open(&tg, o->pid, &to, &msg))
		print_version_info(stdout, &tg.rt, &tg.as);
	else
		rc = fail_access(msg.s, tg.refused);
	live_target_close(&tg);
	sb_free(&msg);
	return rc;
}
