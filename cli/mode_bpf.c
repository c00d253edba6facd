/* mode_bpf.c — eBPF sampling: the kernel copies each sample's registers and stack memory
 * (bpf/bpf_sampler.bpf.c) and nothing is ever stopped; each record is walked here with the same
 * walker and decoder as ptrace mode (bpf/sample_walk.h) and added to the profile. Serves one or
 * several --pid, --all-node (every V8 process, rescanned while sampling) and launch mode, and
 * ends on --duration, SIGINT/SIGTERM/SIGHUP, or when every sampled process has exited. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/text_escape.h"
#include "../bpf/bpf_sampler.h"
#include "../symtab/kallsyms.h"
#include "../util/clock.h"
#include "../util/proc_status.h"
#include "../bpf/bpf_procs.h"
#include "diagnose_bpf.h"
#include "launch.h"
#include "modes.h"
#include "../sampling/node_scan.h"
#include "live_hooks.h"
#include "../profile/profile.h"
#include "stop_signals.h"
#include "summary.h"

enum {
	DEFAULT_TOP_KB = 8,
	HOUSEKEEPING_NS = 200 * 1000 * 1000, /* exits checked this often (besides exit records) */
	CONSUME_SLICE_NS = 50 * 1000 * 1000, /* records named per pass before the loop looks up */
	FINAL_DRAIN_NS = 2000 * 1000 * 1000, /* records written before the end still named */
	RESCAN_NS = 2000 * 1000 * 1000,      /* --all-node: look for new node processes */
	RETRY_OPEN_NS = 10 * 1000 * 1000,    /* launch mode: V8 not mapped yet, look again */
	MAX_FRAMES = STACKWALK_MAX_FRAMES + V8W_KSTACK_MAX + 8,
};

struct bpf_run {
	const struct options *o;
	struct intern strings;
	struct profile prof;
	sample_sink_fn sink; /* where samples go (the profile) */
	void *sink_ctx;
	struct bpf_procs procs;
	struct bpf_sampler *bs;
	struct node_scan scan;
	struct kallsyms ksyms;
	bool have_ksyms;
	uint32_t s_kernel_unknown;
	struct launch launched;
	bool launching;
	struct stop_signals stop;
	struct frame frames[MAX_FRAMES];
	/* statistics */
	unsigned long samples, dropped, truncated, no_js, malformed;
	unsigned long too_deep; /* truncated where the kernel's record was full */
	uint64_t max_lag_ns;    /* from a sample to its walk (heap reads happen then) */
	uint64_t start_ns, end_ns;
	struct u64map tids;     /* distinct (pid, tid) seen */
	struct live_hooks hooks; /* SIGUSR1, --period, top */
};

/* Kernel frames (innermost first) in front of the user frames. */
static int kernel_frames(struct bpf_run *r, const struct v8w_record *rec, struct frame *out, int max)
{
	int n = 0;
	for (uint32_t i = 0; i < rec->nkernel && i < V8W_KSTACK_MAX && n < max; i++) {
		uint64_t pc = rec->kstack[i];
		if (!pc)
			break;
		struct frame *f = &out[n++];
		memset(f, 0, sizeof(*f));
		f->kind = FK_KERNEL;
		f->pc = pc;
		f->is_return = i > 0;
		const char *name = r->have_ksyms ? kallsyms_name(&r->ksyms, i > 0 ? pc - 1 : pc) : NULL;
		f->name = name ? intern_str(&r->strings, name) : r->s_kernel_unknown;
	}
	return n;
}

static void on_sample(struct bpf_run *r, struct bpf_proc *p, const struct v8w_record *rec,
		      const uint8_t *mem, size_t mem_len)
{
	uint64_t now = now_ns();
	if (now > rec->time_ns && now - rec->time_ns > r->max_lag_ns)
		r->max_lag_ns = now - rec->time_ns;
	int nk = kernel_frames(r, rec, r->frames, MAX_FRAMES);
	struct walk_stats ws;
	int n = sample_walk(&p->walker, rec, mem, mem_len, r->frames + nk, STACKWALK_MAX_FRAMES, &ws);
	if (n < 0) {
		r->malformed++;
		return;
	}
	stackwalk_name_natives(&p->sw, r->frames + nk, n);
	bool complete = ws.end == UNWIND_COMPLETE;
	struct sample sm = {.time_ns = rec->time_ns, .pid = p->pid, .tid = (pid_t)rec->tid,
			    .process_name = p->name,
			    .thread_role = thread_labels_role_id(&p->labels, (pid_t)rec->tid, rec->comm,
								 r->frames + nk, n, complete),
			    .frames = r->frames, .n = nk + n};
	r->sink(r->sink_ctx, &sm);
	u64map_put(&r->tids, ((uint64_t)rec->tgid << 32 | rec->tid) + 1, 1);
	p->samples++;
	r->samples++;
	if (!complete) {
		r->truncated++;
		if (rec->fp_end == V8W_FP_FULL || rec->fp_end == V8W_FP_DEPTH)
			r->too_deep++;
	}
	if (ws.js_frames == 0)
		r->no_js++;
}

/* A launched program that called execve but had no V8 then (node on libnode.so maps it later, a
 * script's interpreter may execve node): look again, at most every RETRY_OPEN_NS. */
static void retry_open(struct bpf_run *r, struct bpf_proc *p)
{
	uint64_t now = now_ns();
	if (now - p->last_try_ns < RETRY_OPEN_NS)
		return;
	p->last_try_ns = now;
	if (node_scan_pid(&r->scan, p->pid))
		bpf_proc_exec(&r->procs, p);
}

/* A target ended without its exit record (lost): the kernel's filter forgets its pid here, as
 * the exit tracepoint does otherwise (the pid may be reused; --all-node needs the slot). */
static void target_exited(struct bpf_run *r, struct bpf_proc *p, bool known, int status)
{
	bpf_proc_exited(p, known, status);
	bpf_sampler_remove_target(r->bs, p->pid);
}

static int on_record(void *ctx, const struct v8w_record *rec, const uint8_t *mem, size_t mem_len)
{
	struct bpf_run *r = ctx;
	struct bpf_proc *p = bpf_procs_find(&r->procs, (pid_t)rec->tgid);
	if (!p) {
		r->dropped++;
		return 0;
	}
	switch (rec->type) {
	case V8W_REC_SAMPLE:
		if (p->state == PROC_WAIT_EXEC && p->exec_seen)
			retry_open(r, p);
		if (p->state == PROC_READY)
			on_sample(r, p, rec, mem, mem_len);
		else
			r->dropped++;
		break;
	case V8W_REC_EXEC:
		/* not node (yet)? V8 may be mapped later: retry_open */
		p->exec_seen = true;
		p->last_try_ns = now_ns();
		bpf_proc_exec(&r->procs, p);
		break;
	case V8W_REC_EXIT: /* the kernel already dropped it from its filter */
		bpf_proc_exited(p, true, rec->exit_code);
		break;
	}
	return 0;
}

/* Is the process gone (or a zombie)? For processes that are not our children. */
static bool process_gone(pid_t pid)
{
	char who[32], state[64];
	snprintf(who, sizeof(who), "%d", (int)pid);
	return !proc_status_field(who, "State", state, sizeof(state)) || state[0] == 'Z' ||
	       state[0] == 'X';
}

/* Exits the kernel did not report (a lost record), and the launched child's status. */
static void check_exits(struct bpf_run *r)
{
	for (size_t i = 0; i < r->procs.n; i++) {
		struct bpf_proc *p = r->procs.v[i];
		if (p->state == PROC_EXITED)
			continue;
		if (r->launching && p->pid == r->launched.pid) {
			int st;
			if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
				target_exited(r, p, true, st);
				r->launched.pid = -p->pid; /* reaped */
			}
			continue;
		}
		if (process_gone(p->pid))
			target_exited(r, p, false, 0);
	}
}

static bool already_known(void *ctx, pid_t pid)
{
	return bpf_procs_find(ctx, pid) != NULL;
}

static void add_node_processes(struct bpf_run *r)
{
	pid_t pids[MAX_PIDS];
	size_t n = node_scan(&r->scan, already_known, &r->procs, pids, MAX_PIDS);
	for (size_t i = 0; i < n; i++) {
		struct strbuf why;
		sb_init(&why);
		if (bpf_procs_add(&r->procs, pids[i], &why))
			bpf_sampler_add_target(r->bs, pids[i]);
		else if (!r->o->quiet)
			fprintf_text(stderr, "v8walk: skipping %s\n", why.s);
		sb_free(&why);
	}
}

static bool should_end(struct bpf_run *r, uint64_t deadline)
{
	if (stop_signals_check(&r->stop)) /* non-blocking */
		return true;
	if (deadline && now_ns() >= deadline)
		return true;
	return !r->o->all_node && bpf_procs_alive(&r->procs) == 0;
}

static void run_loop(struct bpf_run *r)
{
	const struct options *o = r->o;
	uint64_t deadline = o->duration_s > 0 ? r->start_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	uint64_t last_check = r->start_ns, last_scan = r->start_ns, last_hook = r->start_ns;
	uint64_t hook_ns = live_hooks_interval_ns(o);
	for (;;) {
		struct pollfd p[2] = {{.fd = bpf_sampler_fd(r->bs), .events = POLLIN},
				      {.fd = r->stop.fd, .events = POLLIN}};
		int timeout = HOUSEKEEPING_NS / 1000000;
		if (deadline) {
			uint64_t now = now_ns();
			uint64_t left_ms = now < deadline ? (deadline - now) / 1000000 + 1 : 0;
			if (left_ms < (uint64_t)timeout)
				timeout = (int)left_ms;
		}
		if ((uint64_t)timeout > hook_ns / 1000000)
			timeout = (int)(hook_ns / 1000000);
		poll(p, 2, timeout);
		bpf_sampler_consume(r->bs, CONSUME_SLICE_NS);
		uint64_t now = now_ns();
		if (now - last_hook >= hook_ns) {
			if (live_hooks_due(&r->hooks, now))
				break;
			last_hook = now;
		}
		if (now - last_check >= HOUSEKEEPING_NS) {
			check_exits(r);
			last_check = now;
		}
		if (o->all_node && now - last_scan >= RESCAN_NS) {
			add_node_processes(r);
			last_scan = now;
		}
		if (should_end(r, deadline))
			break;
	}
	/* what the kernel wrote before the end */
	if (bpf_sampler_consume(r->bs, FINAL_DRAIN_NS) == -EAGAIN && !o->quiet)
		fprintf(stderr, "v8walk: the last records were left unnamed: naming them took over "
				"%d s\n", FINAL_DRAIN_NS / 1000000000);
	r->end_ns = now_ns();
}

static void print_exit(const struct bpf_proc *p, bool only)
{
	char who[64] = "the target";
	if (!only)
		snprintf(who, sizeof(who), "process %d", (int)p->pid);
	print_exit_status(stderr, who, p->exit_known, p->exit_status);
}

static void print_bpf_summary(struct bpf_run *r)
{
	uint64_t ksamples, lost;
	bpf_sampler_counters(r->bs, &ksamples, &lost);
	double secs = (double)(r->end_ns - r->start_ns) / 1e9;
	double cpu = own_cpu_seconds();
	unsigned long errors = r->truncated + (unsigned long)lost + r->malformed;
	size_t sampled = 0; /* processes that were opened (a label is given then) */
	for (size_t i = 0; i < r->procs.n; i++)
		sampled += r->procs.v[i]->name != 0;
	double total = (double)(r->samples + lost);
	fprintf_text(stderr,
		"v8walk: %lu samples in %.1f s (%.1f/s, eBPF; %zu processes, %zu threads seen); %lu "
		"with JS frames; errors %lu (%.1f%%: %lu truncated, %lu lost); max lag %.1f ms; "
		"v8walk CPU %.1f%%\n",
		r->samples, secs, secs > 0 ? (double)r->samples / secs : 0.0, sampled, r->tids.len,
		r->samples - r->no_js, errors, total > 0 ? 100.0 * (double)errors / total : 0.0,
		r->truncated, (unsigned long)lost, (double)r->max_lag_ns / 1e6,
		secs > 0.1 ? 100.0 * cpu / secs : 0.0);
	if (lost)
		fprintf_text(stderr, "v8walk: %lu samples were lost because v8walk fell behind; try a "
				"lower --rate\n", (unsigned long)lost);
	if (r->too_deep)
		fprintf_text(stderr, "v8walk: %lu stacks were deeper than one eBPF sample holds (%d KiB): "
				"their outermost frames are missing\n", r->too_deep, V8W_MEM_MAX >> 10);
	print_limits(stderr, 0, NULL, NULL, &r->strings);
	for (size_t i = 0; i < r->procs.n; i++) {
		if (r->procs.v[i]->open)
			print_limits(stderr, r->procs.v[i]->pid, &r->procs.v[i]->pm,
				     &r->procs.v[i]->sw.scripts, NULL);
		if (r->procs.v[i]->state == PROC_EXITED)
			print_exit(r->procs.v[i], r->procs.n == 1);
	}
}

/* Launch mode: a program that never ran node was not sampled; say why. */
static void report_never_node(const struct bpf_run *r)
{
	pid_t pid = r->launched.pid > 0 ? r->launched.pid : -r->launched.pid;
	const struct bpf_proc *p = bpf_procs_find(&r->procs, pid);
	if (p && !p->open && p->samples == 0 && p->why_not[0])
		fprintf_text(stderr, "v8walk: %s never ran node, so nothing was sampled: %s\n",
			r->o->command[0], p->why_not);
}

/* Open the processes named on the command line (before the sampler starts, so that a wrong pid
 * is reported as in ptrace mode); false after printing why one cannot be sampled. */
static bool open_given_processes(struct bpf_run *r)
{
	for (size_t i = 0; i < r->o->npids; i++) {
		struct strbuf why;
		sb_init(&why);
		bool ok = bpf_procs_add(&r->procs, r->o->pids[i], &why);
		if (!ok)
			fail_msg(why.s);
		sb_free(&why);
		if (!ok)
			return false;
	}
	return true;
}

/* Put the opened processes in the kernel's filter. */
static bool sample_given_processes(struct bpf_run *r)
{
	for (size_t i = 0; i < r->procs.n; i++) {
		int err = bpf_sampler_add_target(r->bs, r->procs.v[i]->pid);
		if (err) {
			fprintf_text(stderr, "v8walk: cannot add process %d to the eBPF sampler: %s\n",
				(int)r->procs.v[i]->pid, strerror(-err));
			return false;
		}
	}
	return true;
}

static void announce(const struct bpf_run *r)
{
	const struct options *o = r->o;
	if (o->quiet)
		return;
	if (o->all_node)
		fprintf_text(stderr, "v8walk: sampling every node process (%zu now) with eBPF at %g Hz; "
				"Ctrl-C to stop\n", r->procs.n, o->rate_hz);
	else if (o->command)
		fprintf_text(stderr, "v8walk: started %s (process %d); sampling it with eBPF at %g Hz until "
				"it exits\n", o->command[0], (int)r->launched.pid, o->rate_hz);
	else if (r->procs.n == 1) {
		struct strbuf d;
		sb_init(&d);
		v8_runtime_describe(&r->procs.v[0]->tg.rt, &d);
		fprintf_text(stderr, "v8walk: sampling process %d (%s) with eBPF at %g Hz%s; Ctrl-C to stop\n",
			(int)r->procs.v[0]->pid, d.s, o->rate_hz,
			o->duration_s > 0 ? "" : " until interrupted");
		sb_free(&d);
	} else
		fprintf_text(stderr, "v8walk: sampling %zu processes with eBPF at %g Hz; Ctrl-C to stop\n",
			r->procs.n, o->rate_hz);
}

/* Start the eBPF sampler; on failure print one line (joined to the ptrace refusal in auto mode). */
static bool start_sampler(struct bpf_run *r, const char *ptrace_refusal)
{
	const struct options *o = r->o;
	struct bpf_sampler_config cfg = {
	    .rate_hz = o->rate_hz,
	    .top_bytes = (o->stack_kb_set ? o->stack_kb : DEFAULT_TOP_KB) << 10,
	    .kernel_stacks = o->kernel,
	};
	struct bpf_failure fail;
	r->bs = bpf_sampler_open(&cfg, on_record, r, &fail);
	if (r->bs) {
		if (ptrace_refusal)
			fprintf_text(stderr, "v8walk: %s; sampling with eBPF instead\n", ptrace_refusal);
		return true;
	}
	struct strbuf why;
	sb_init(&why);
	if (ptrace_refusal)
		sb_printf(&why, "%s; and eBPF sampling is not possible either: ", ptrace_refusal);
	diagnose_bpf(&fail, o->rate_hz, &why);
	fail_msg(why.s);
	sb_free(&why);
	return false;
}

/* What a profile of this run says about it (periodic_output.h). */
static void describe_run(void *ctx, const struct options *o, struct profile *prof,
			 uint64_t start_ns, uint64_t end_ns)
{
	struct bpf_run *r = ctx;
	const struct v8_runtime *rt = NULL;
	for (size_t i = 0; i < r->procs.n; i++) {
		struct bpf_proc *p = r->procs.v[i];
		if (!p->open)
			continue;
		rt = rt ? rt : &p->tg.rt;
		profile_add_modules(prof, p->pid, &p->tg.as);
	}
	profile_meta_fill(o, rt, start_ns, end_ns, &prof->meta);
}

static int finish(struct bpf_run *r)
{
	int rc = live_hooks_finish(&r->hooks, r->end_ns ? r->end_ns : now_ns());
	if (!r->o->quiet)
		print_bpf_summary(r);
	if (!r->launching)
		return rc;
	report_never_node(r);
	/* launch mode: the program's exit code (waited for if --duration ended sampling first) */
	int code = EXIT_ERROR;
	if (r->launched.pid > 0)
		code = launch_wait(&r->launched);
	else {
		struct bpf_proc *p = bpf_procs_find(&r->procs, -r->launched.pid);
		code = p && p->exit_known ? shell_exit_code(p->exit_status) : EXIT_ERROR;
	}
	return rc ? rc : code;
}

/* The header figures of `top`. */
static void run_status(void *ctx, struct top_status *st)
{
	struct bpf_run *r = ctx;
	uint64_t ksamples, lost;
	bpf_sampler_counters(r->bs, &ksamples, &lost);
	*st = (struct top_status){.sampler = "eBPF", .threads = r->tids.len, .samples = r->samples,
				  .errors = r->truncated + r->malformed, .missed = (unsigned long)lost,
				  .max_lag_ms = (double)r->max_lag_ns / 1e6};
}

static void open_top(struct bpf_run *r)
{
	const struct options *o = r->o;
	char title[512];
	struct strbuf rt;
	sb_init(&rt);
	if (r->procs.n == 1 && !o->all_node) {
		top_view_title_of(r->procs.v[0]->pid, title, sizeof(title));
		if (r->procs.v[0]->open)
			v8_runtime_describe(&r->procs.v[0]->tg.rt, &rt);
	} else {
		snprintf(title, sizeof(title), "%s (%zu processes)",
			 o->all_node ? "every node process" : "several processes", r->procs.n);
	}
	top_view_open(&r->hooks.tv, o, &r->prof, &r->stop, run_status, r, title, rt.s, r->start_ns);
	r->hooks.top = true;
	sb_free(&rt);
}

/* Launch mode: the child is held before execve until its pid is in the kernel's filter. */
static bool start_launch(struct bpf_run *r, int *code)
{
	struct strbuf why;
	sb_init(&why);
	struct launch_as as;
	bool ok = launch_as_for(&as, &r->o->given_sigmask, r->o->keep_root, &why) &&
		  launch_prepare(&r->launched, r->o->command, &as, &why);
	if (!ok) {
		*code = fail_msg(why.s);
		sb_free(&why);
		return false;
	}
	r->launching = true;
	stop_signals_close(&r->stop);
	stop_signals_init(&r->stop, r->launched.pid);
	bpf_procs_add_waiting(&r->procs, r->launched.pid);
	if (bpf_sampler_add_target(r->bs, r->launched.pid) != 0) {
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

int mode_bpf(const struct options *o, const char *ptrace_refusal)
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
	r->sink = profile_sink;
	r->sink_ctx = &r->prof;
	struct target_opts to = target_opts_of(o);
	bpf_procs_init(&r->procs, &r->strings, &to);
	node_scan_init(&r->scan);
	u64map_init(&r->tids, 0);
	r->s_kernel_unknown = intern_str(&r->strings, "[unknown] (kernel)");
	stop_signals_init(&r->stop, 0);
	int code = EXIT_ERROR;
	if (!open_given_processes(r) || !start_sampler(r, ptrace_refusal))
		goto out;
	if (o->kernel && !(r->have_ksyms = kallsyms_load(&r->ksyms, "/proc/kallsyms")))
		fprintf_text(stderr, "v8walk: kernel frames stay unnamed: /proc/kallsyms shows no "
				"addresses (kernel.kptr_restrict)\n");
	if (o->command) {
		if (!start_launch(r, &code))
			goto out;
	} else if (o->all_node) {
		add_node_processes(r);
	} else if (!sample_given_processes(r)) {
		goto out;
	}
	announce(r);
	r->start_ns = now_ns();
	periodic_output_init(&r->hooks.po, o, &r->prof, &r->stop, describe_run, r, r->start_ns);
	if (o->top)
		open_top(r);
	run_loop(r);
	code = finish(r);
out:
	bpf_sampler_close(r->bs);
	stop_signals_close(&r->stop);
	if (r->have_ksyms)
		kallsyms_free(&r->ksyms);
	u64map_free(&r->tids);
	node_scan_free(&r->scan);
	bpf_procs_free(&r->procs);
	profile_free(&r->prof);
	intern_free(&r->strings);
	free(r);
	return code;
}
