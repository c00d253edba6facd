/* mode_record.c — the live sampler: attach to a node process, sample it until the duration ends
 * or a signal arrives, detach, and write the profile (tree or folded stacks). */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>

#include "modes.h"
#include "profile.h"
#include "session.h"
#include "summary.h"
#include "version_info.h"
#include "write_folded.h"
#include "write_tree.h"

static void add_sample(void *ctx, uint32_t process_label, uint32_t thread_label,
		       const struct frame *frames, int n)
{
	profile_add_sample(ctx, process_label, thread_label, frames, n, 1);
}

/* SIGINT/SIGTERM/SIGHUP become readable on a signalfd: the loop ends, output is flushed and every
 * thread is detached, whatever moment the signal arrives. */
static int stop_signals_fd(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int mode_record(const struct options *o)
{
	struct sampler_opts so = {.rate_hz = o->rate_hz,
				  .duration_s = o->duration_s,
				  .idle = o->idle,
				  .stack_chunk = (size_t)o->stack_kb << 10,
				  .stop_fd = stop_signals_fd()};
	struct profile prof;
	struct live_session ss;
	if (!session_open(&ss, o, &so, add_sample, &prof))
		return 1;
	profile_init(&prof, &ss.strings,
		     o->no_lines ? LINES_NONE : o->function_lines ? LINES_FUNCTION : LINES_CURRENT);
	int rc = 1;
	if (!session_attach(&ss, o))
		goto out;
	if (!o->quiet) {
		struct strbuf d;
		sb_init(&d);
		v8_runtime_describe(&ss.tg.rt, &d);
		fprintf(stderr, "v8walk: sampling process %d (%s) at %g Hz%s; Ctrl-C to stop\n",
			(int)o->pid, d.s, o->rate_hz, o->duration_s > 0 ? "" : " until interrupted");
		sb_free(&d);
	}
	sampler_run(&ss.s);
	session_detach(&ss);
	FILE *out = open_output(o);
	if (out) {
		int w = o->format == OUT_FOLDED ? write_folded(&prof, out)
						: write_tree(&prof, o->min_percent, out);
		rc = close_output(o, out, w);
	}
	if (!o->quiet)
		print_summary(stderr, &ss.s, &ss.tr);
out:
	profile_free(&prof);
	session_close(&ss);
	return rc;
}

int mode_version_info(const struct options *o)
{
	struct strbuf msg;
	sb_init(&msg);
	struct live_target tg;
	int rc = 0;
	if (live_target_open(&tg, o->pid, o, &msg))
		print_version_info(stdout, &tg.rt, &tg.as);
	else
		rc = fail_msg(msg.s);
	live_target_close(&tg);
	sb_free(&msg);
	return rc;
}
