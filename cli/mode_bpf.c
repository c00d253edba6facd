/* mode_bpf.c — eBPF sampling (bpf/bpf_backend.h) from the command line: one or several --pid,
 * --all-node or launch mode; says what it samples, runs the CLI's loop (run_loop.h) until
 * --duration, SIGINT/SIGTERM/SIGHUP or every sampled process has exited, and writes the profile
 * and the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"
#include "../bpf/bpf_backend.h"
#include "../util/clock.h"
#include "../export/ch_export.h"
#include "diagnose_bpf.h"
#include "launch.h"
#include "modes.h"
#include "live_hooks.h"
#include "../profile/profile.h"
#include "run_loop.h"
#include "stall_output.h"
#include "stop_signals.h"
#include "summary.h"

/* stack bytes copied from sp (--stack-kb): 8 KiB; with --stalls, whose records are few, all the
 * record holds (a synchronous call's native frames below the JavaScript can take more than 8) */
enum { DEFAULT_TOP_KB = 8, STALLS_TOP_KB = BPF_SAMPLER_MAX_TOP_BYTES >> 10 };

struct bpf_run {
	const struct options *o;
	struct intern strings;
	struct profile prof;
	struct bpf_backend b;
	struct launch launched;
	bool launching;
	struct stop_signals stop;
	struct live_hooks hooks; /* SIGUSR1, --period, top */
	struct stall_tracker stalls;  /* --stalls */
	struct stall_output stall_out;
};

static void print_exit(const struct bpf_proc *p, bool only)
{
	char who[64] = "the target";
	if (!only)
		snprintf(who, sizeof(who), "process %d", (int)p->pid);
	print_exit_status(stderr, who, p->exit_known, p->exit_status);
}

static void print_bpf_summary(struct bpf_run *r)
{
	struct run_stats st;
	bpf_backend_ops.stats(&r->b, &st);
	print_run_summary(stderr, &st);
	double reads, cpu, us;
	if (bpf_backend_steady(&r->b, &reads, &cpu, &us))
		print_steady_state(stderr, reads, -1, cpu, us);
	if (st.missed)
		fprintf_text(stderr, "v8walk: %lu samples were lost because v8walk fell behind; try a "
				"lower --rate\n", st.missed);
	if (r->b.too_deep)
		fprintf_text(stderr, "v8walk: %lu stacks were deeper than one eBPF sample holds (%d KiB): "
				"their outermost frames are missing\n", r->b.too_deep, V8W_MEM_MAX >> 10);
	print_limits(stderr, 0, NULL, NULL, &r->strings);
	bpf_backend_check_run(&r->b);
	const struct bpf_procs *ps = &r->b.procs;
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->v[i]->open)
			print_limits(stderr, ps->v[i]->pid, &ps->v[i]->pm, &ps->v[i]->sw.scripts, NULL);
		if (ps->v[i]->state == PROC_EXITED)
			print_exit(ps->v[i], ps->n == 1);
	}
}

/* Launch mode: a program that never ran node was not sampled; say why. */
static void report_never_node(const struct bpf_run *r)
{
	const struct bpf_proc *p = bpf_procs_find(&r->b.procs, r->launched.pid);
	if (p && !p->open && p->samples == 0 && p->why_not[0])
		fprintf_text(stderr, "v8walk: %s never ran node, so nothing was sampled: %s\n",
			r->o->command[0], p->why_not);
}

/* Open the processes named on the command line (before the sampler starts, so that a wrong pid
 * is reported as in ptrace mode); false after printing why one cannot be sampled, with the exit
 * status in *code. */
static bool open_given_processes(struct bpf_run *r, int *code)
{
	for (size_t i = 0; i < r->o->npids; i++) {
		struct strbuf why;
		sb_init(&why);
		bool ok = bpf_procs_add(&r->b.procs, r->o->pids[i], &why);
		if (!ok) {
			const struct bpf_proc *p = bpf_procs_find(&r->b.procs, r->o->pids[i]);
			*code = fail_access(why.s, p && p->tg.refused);
		}
		sb_free(&why);
		if (!ok)
			return false;
	}
	return true;
}

static void announce(const struct bpf_run *r)
{
	const struct options *o = r->o;
	if (o->quiet)
		return;
	if (o->stalls_ms) {
		fprintf_text(stderr, "v8walk: sampling the stalls of %s's event loop (iterations of %g ms "
				"or more) with eBPF at %g Hz; Ctrl-C to stop\n",
			o->all_node ? "every node process" : o->command ? o->command[0] :
			r->b.procs.n == 1 ? "the process" : "each process",
			o->stalls_ms, o->rate_hz);
		return;
	}
	if (o->all_node)
		fprintf_text(stderr, "v8walk: sampling every node process (%zu now) with eBPF at %g Hz; "
				"Ctrl-C to stop\n", r->b.procs.n, o->rate_hz);
	else if (o->command)
		fprintf_text(stderr, "v8walk: started %s (process %d); sampling it with eBPF at %g Hz until "
				"it exits\n", o->command[0], (int)r->launched.pid, o->rate_hz);
	else if (r->b.procs.n == 1) {
		struct strbuf d;
		sb_init(&d);
		v8_runtime_describe(&r->b.procs.v[0]->tg.rt, &d);
		fprintf_text(stderr, "v8walk: sampling process %d (%s) with eBPF at %g Hz%s; Ctrl-C to stop\n",
			(int)r->b.procs.v[0]->pid, d.s, o->rate_hz,
			o->duration_s > 0 ? "" : " until interrupted");
		sb_free(&d);
	} else
		fprintf_text(stderr, "v8walk: sampling %zu processes with eBPF at %g Hz; Ctrl-C to stop\n",
			r->b.procs.n, o->rate_hz);
}

/* Start the eBPF sampler; on failure print one line (joined to the ptrace refusal in auto mode)
 * and set *code: EXIT_PERMISSION when the kernel's access control refused either sampler. */
static bool start_sampler(struct bpf_run *r, const char *ptrace_refusal, bool refusal_is_access,
			  int *code)
{
	const struct options *o = r->o;
	struct bpf_sampler_config cfg = {
	    .rate_hz = o->rate_hz,
	    .top_bytes = (o->stack_kb_set ? o->stack_kb : o->stalls_ms ? STALLS_TOP_KB : DEFAULT_TOP_KB) << 10,
	    .kernel_stacks = o->kernel,
	    .on_cpu_only = o->on_cpu,
	    .stall_ns = (uint64_t)(o->stalls_ms * 1e6),
	};
	struct bpf_failure fail;
	if (bpf_backend_start(&r->b, &cfg, &fail)) {
		if (ptrace_refusal)
			fprintf_text(stderr, "v8walk: %s; sampling with eBPF instead\n", ptrace_refusal);
		return true;
	}
	struct strbuf why;
	sb_init(&why);
	if (ptrace_refusal)
		sb_printf(&why, "%s; and eBPF sampling is not possible either: ", ptrace_refusal);
	bool refused = diagnose_bpf(&fail, o->rate_hz, &why);
	*code = fail_access(why.s, refused || refusal_is_access);
	sb_free(&why);
	return false;
}

/* What a profile of this run says about it (periodic_output.h). */
static void describe_run(void *ctx, const struct options *o, struct profile *prof,
			 uint64_t start_ns, uint64_t end_ns)
{
	struct bpf_run *r = ctx;
	const struct v8_runtime *rt = NULL;
	for (size_t i = 0; i < r->b.procs.n; i++) {
		struct bpf_proc *p = r->b.procs.v[i];
		if (!p->open)
			continue;
		rt = rt ? rt : &p->tg.rt;
		profile_add_modules(prof, p->pid, &p->tg.as);
	}
	profile_meta_fill(o, rt, start_ns, end_ns, &prof->meta);
}

/* A stall ended: said on stderr (and as JSON), and exported with the next period. */
static void report_stall(void *ctx, const struct stall_report *s)
{
	struct bpf_run *r = ctx;
	stall_output_report(&r->stall_out, s);
	if (r->o->exporter)
		ch_export_stall(r->o->exporter, &r->strings, s,
				stall_output_unix_ms(&r->stall_out, s->start_ns));
}

static void check_period(void *ctx, unsigned long seq, struct strbuf *note)
{
	struct bpf_run *r = ctx;
	if (!r->o->quiet)
		bpf_backend_check_period(&r->b, seq, note);
}

static int finish(struct bpf_run *r)
{
	uint64_t end = r->b.end_ns ? r->b.end_ns : now_ns();
	if (r->b.stalls)
		stall_tracker_finish(r->b.stalls, end);
	int rc = live_hooks_finish(&r->hooks, end);
	if (!r->o->quiet) {
		print_bpf_summary(r);
		if (r->b.stalls)
			stall_output_summary(&r->stall_out, r->b.stalls, stderr);
	}
	if (!r->launching)
		return rc;
	report_never_node(r);
	/* launch mode: the program's exit code (waited for if --duration ended sampling first) */
	int code = EXIT_ERROR;
	if (!r->b.child_reaped)
		code = launch_wait(&r->launched);
	else {
		struct bpf_proc *p = bpf_procs_find(&r->b.procs, r->launched.pid);
		code = p && p->exit_known ? shell_exit_code(p->exit_status) : EXIT_ERROR;
	}
	return rc ? rc : code;
}

static void open_top(struct bpf_run *r, uint64_t start)
{
	const struct options *o = r->o;
	char title[512];
	struct strbuf rt;
	sb_init(&rt);
	if (r->b.procs.n == 1 && !o->all_node) {
		top_view_title_of(r->b.procs.v[0]->pid, title, sizeof(title));
		if (r->b.procs.v[0]->open)
			v8_runtime_describe(&r->b.procs.v[0]->tg.rt, &rt);
	} else {
		snprintf(title, sizeof(title), "%s (%zu processes)",
			 o->all_node ? "every node process" : "several processes", r->b.procs.n);
	}
	struct sampler_backend b = bpf_backend(&r->b);
	live_hooks_open_top(&r->hooks, &b, title, rt.s, start);
	sb_free(&rt);
}

/* Launch mode: the child is held before execve until its pid is in the kernel's filter. */
static bool start_launch(struct bpf_run *r, int *code)
{
	struct strbuf why;
	sb_init(&why);
	struct launch_as as;
	bool ok = launch_as_for(&as, &r->o->given_sigmask, &r->o->given_nofile,
				  r->o->keep_root, &why) &&
		  launch_prepare(&r->launched, r->o->command, &as, &why);
	if (!ok) {
		*code = fail_msg(why.s);
		sb_free(&why);
		return false;
	}
	r->launching = true;
	stop_signals_close(&r->stop);
	stop_signals_init(&r->stop, r->launched.pid);
	if (bpf_backend_add_child(&r->b, r->launched.pid) != 0) {
		launch_abort(&r->launched);
		*code = fail_msg("cannot add the program to the eBPF sampler's targets");
		sb_free(&why);
		return false;
	}
	int err = launch_release(&r->launched);
	if (err) {
		*code = launch_failed(&r->launched, err);
		sb_free(&why);
		return false;
	}
	sb_free(&why);
	return true;
}

int mode_bpf(const struct options *o, const char *ptrace_refusal, bool refusal_is_access)
{
	if (o->stack_kb_set && (o->stack_kb << 10) > BPF_SAMPLER_MAX_TOP_BYTES)
		return fail_msg("with eBPF sampling --stack-kb is at most 12 (the kernel copies the "
				"rest of the stack frame by frame)");
	struct bpf_run *r = calloc(1, sizeof(*r));
	if (!r)
		return fail_msg("out of memory");
	r->o = o;
	intern_init(&r->strings);
	intern_set_budget(&r->strings, INTERN_TARGET_BUDGET, INTERN_OVERFLOW_NAME);
	profile_init(&r->prof, &r->strings, line_mode_of(o));
	struct target_opts to = target_opts_of(o);
	bpf_backend_init(&r->b, &r->strings, &to, profile_sink, &r->prof, o->all_node);
	if (o->stalls_ms) {
		stall_output_init(&r->stall_out, &r->strings, stderr, o->json ? stdout : NULL,
				  o->stalls_ms);
		stall_tracker_init(&r->stalls, &r->strings, line_mode_of(o), report_stall, r);
		r->b.stalls = &r->stalls;
	}
	stop_signals_init(&r->stop, 0);
	int code = EXIT_ERROR;
	if (!open_given_processes(r, &code) ||
	    !start_sampler(r, ptrace_refusal, refusal_is_access, &code))
		goto out;
	if (o->kernel && !bpf_backend_load_kallsyms(&r->b))
		fprintf_text(stderr, "v8walk: kernel frames stay unnamed: /proc/kallsyms shows no "
				"addresses (kernel.kptr_restrict)\n");
	if (o->command) {
		if (!start_launch(r, &code))
			goto out;
	} else if (o->all_node) {
		bpf_backend_add_node_processes(&r->b);
	} else if (!bpf_backend_sample_opened(&r->b)) {
		goto out;
	}
	announce(r);
	uint64_t start = now_ns();
	periodic_output_init(&r->hooks.po, o, &r->prof, &r->stop, describe_run, r, start);
	r->hooks.po.check = check_period;
	if (o->top)
		open_top(r, start);
	struct sampler_backend b = bpf_backend(&r->b);
	run_loop(&b, o->duration_s, &r->stop, &r->hooks);
	b.ops->close(b.ctx);
	code = finish(r);
out:
	stop_signals_close(&r->stop);
	bpf_backend_free(&r->b);
	if (o->stalls_ms)
		stall_tracker_free(&r->stalls);
	profile_free(&r->prof);
	intern_free(&r->strings);
	free(r);
	return code;
}
