/* main.c — v8walk's entry point: parse options, check the target, attach, sample, write. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../symtab/addrspace.h"
#include "../util/clock.h"
#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../v8/runtime.h"
#include "../walker/sampler.h"
#include "../walker/stackwalk.h"
#include "../walker/tracer.h"
#include "diagnose.h"
#include "options.h"
#include "profile.h"
#include "summary.h"
#include "version_info.h"
#include "write_folded.h"
#include "write_tree.h"

struct sink_ctx {
	struct profile *profile;
};

static void add_sample(void *ctx, uint32_t process_label, uint32_t thread_label,
		       const struct frame *frames, int n)
{
	struct sink_ctx *c = ctx;
	profile_add_sample(c->profile, process_label, thread_label, frames, n, 1);
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

static int fail(const char *msg)
{
	fprintf(stderr, "v8walk: %s\n", msg);
	return 1;
}

static int write_output(const struct options *o, const struct profile *p)
{
	FILE *out = stdout;
	if (o->output) {
		out = fopen(o->output, "we");
		if (!out) {
			fprintf(stderr, "v8walk: cannot write %s: %s\n", o->output, strerror(errno));
			return 1;
		}
	}
	int rc = o->format == OUT_FOLDED ? write_folded(p, out) : write_tree(p, o->min_percent, out);
	if (out != stdout && fclose(out) != 0)
		rc = -1;
	else if (out == stdout && fflush(out) != 0)
		rc = -1;
	if (rc) {
		fprintf(stderr, "v8walk: writing the profile failed: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	int code;
	if (!parse_options(argc, argv, &o, &code))
		return code;
	/* precise wake-ups for the sampling timer */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	if (!process_exists(o.pid)) {
		fprintf(stderr, "v8walk: no process with pid %d\n", (int)o.pid);
		return 1;
	}
	struct strbuf msg;
	sb_init(&msg);
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)o.pid);
	struct addrspace as;
	addrspace_init(&as, o.pid, root);
	int err = addrspace_load_proc(&as);
	if (err) {
		diagnose_access(o.pid, -err, &msg);
		return fail(msg.s);
	}
	struct v8_runtime rt;
	enum v8_open_status vst =
	    v8_runtime_open(&rt, &as, o.have_force_version ? &o.force_version : NULL, &msg);
	if (vst != V8_OK) {
		char comm[64];
		process_comm(o.pid, comm, sizeof(comm));
		struct strbuf m2;
		sb_init(&m2);
		if (vst == V8_NOT_NODE)
			sb_printf(&m2, "process %d (%s) is not a Node.js process: %s", (int)o.pid, comm, msg.s);
		else
			sb_printf(&m2, "process %d (%s): %s", (int)o.pid, comm, msg.s);
		return fail(m2.s);
	}
	if (o.version_info) {
		print_version_info(stdout, &rt, &as);
		return 0;
	}

	int stop_fd = stop_signals_fd();
	struct tracer tr;
	if ((err = tracer_init_signals(&tr)) != 0)
		return fail("cannot set up signal handling");
	struct intern strings;
	intern_init(&strings);
	struct stackwalk sw;
	stackwalk_init(&sw, &as, &rt, &strings, o.full_native_names);
	struct profile prof;
	profile_init(&prof, &strings,
		     o.no_lines ? LINES_NONE : o.function_lines ? LINES_FUNCTION : LINES_CURRENT);
	struct sink_ctx sink = {.profile = &prof};
	struct sampler_opts so = {.rate_hz = o.rate_hz,
				  .duration_s = o.duration_s,
				  .idle = o.idle,
				  .stack_chunk = (size_t)o.stack_kb << 10,
				  .stop_fd = stop_fd};
	struct sampler s;
	sampler_init(&s, o.pid, &so, &tr, &sw, &as, &strings, add_sample, &sink);
	err = tracer_attach(&tr, o.pid, sampler_on_stop, &s);
	if (err) {
		diagnose_access(o.pid, -err, &msg);
		return fail(msg.s);
	}
	if (!o.quiet) {
		struct strbuf d;
		sb_init(&d);
		v8_runtime_describe(&rt, &d);
		fprintf(stderr, "v8walk: sampling process %d (%s) at %g Hz%s; Ctrl-C to stop\n",
			(int)o.pid, d.s, o.rate_hz, o.duration_s > 0 ? "" : " until interrupted");
		sb_free(&d);
	}
	sampler_run(&s);
	tracer_detach_all(&tr, 1000 * 1000 * 1000ULL);

	int rc = write_output(&o, &prof);
	if (!o.quiet)
		print_summary(stderr, &s, &tr);
	sampler_free(&s);
	tracer_free(&tr);
	profile_free(&prof);
	stackwalk_free(&sw);
	intern_free(&strings);
	v8_runtime_free(&rt);
	addrspace_free(&as);
	sb_free(&msg);
	return rc;
}
