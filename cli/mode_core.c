/* mode_core.c — `--core FILE [--exe PATH]`: every thread's mixed stack from a core file. The
 * threads are walked by the same stack walker as live dumps, over the core's memory source; the
 * crashed thread comes first, marked with its signal. What the core lacks is stated: warnings
 * about the input as a whole, and per thread what was missing while walking it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"
#include "summary.h"
#include "../postmortem/core_target.h"
#include "../util/xalloc.h"
#include "../walker/stackwalk.h"
#include "../walker/thread_role.h"
#include "../sourcemap/store.h"
#include "dump.h"
#include "modes.h"
#include "pending.h"
#include "version_info.h"

struct core_walk {
	struct core_target *ct;
	struct stackwalk sw;
	struct sm_store sourcemaps; /* unless --no-source-maps */
	struct intern strings;
	struct frame frames[STACKWALK_MAX_FRAMES];
};

static void add_damage(char *buf, size_t cap, unsigned long n, const char *what)
{
	if (n == 0)
		return;
	size_t used = strlen(buf);
	snprintf(buf + used, cap - used, "%s%lu read%s %s", used ? "; " : "", n, n == 1 ? "" : "s",
		 what);
}

static void state_damage(struct thread_dump *td, const struct core_misses *before,
			 const struct core_misses *after, bool stack_mapped)
{
	char *buf = td->damage;
	size_t cap = sizeof(td->damage);
	if (!stack_mapped)
		snprintf(buf, cap, "its stack pointer is in no mapping of the core");
	add_damage(buf, cap, after->truncated - before->truncated,
		   "fell in the part of the core that was cut off");
	add_damage(buf, cap, after->not_dumped - before->not_dumped,
		   "needed memory the core does not hold (not dumped)");
	add_damage(buf, cap, after->no_file - before->no_file,
		   "needed file-backed memory that is neither in the core nor readable on disk");
	size_t used = strlen(buf);
	if (used && stack_mapped)
		snprintf(buf + used, cap - used, ": frames that needed it are unnamed, or the walk "
						 "stopped there");
}

static void walk_thread(struct core_walk *w, const struct core_thread *th, struct process_dump *d)
{
	struct core_target *ct = w->ct;
	struct regset regs;
	regset_from_prstatus(&regs, th->regs);
	regs.pac_mask = ct->cf.pac_mask ? ct->cf.pac_mask : regset_pac_mask_default();
	uint64_t sp = regs.r[REG_SP];
	struct stack_bounds b = {sp, sp};
	const struct mapping *m = maps_find(&ct->as.maps, sp);
	if (m) {
		b.lo = m->start;
		b.hi = m->end;
	}
	struct core_misses before = ct->mem.miss;
	struct walk_stats ws;
	int n = stackwalk_capture(&w->sw, &regs, &ct->mem.base, &b, w->frames, STACKWALK_MAX_FRAMES,
				  &ws);
	stackwalk_name_natives(&w->sw, w->frames, n);
	struct thread_dump *td = process_dump_add(d, th->tid, w->frames, n);
	struct thread_facts tf = {
	    .is_leader = th->tid == ct->cf.pid,
	    .kernel_name = NULL, /* cores do not record thread names */
	    .process_name = ct->cf.fname,
	    .frames = w->frames,
	    .nframes = n,
	    .complete = ws.end == UNWIND_COMPLETE,
	    .strings = &w->strings,
	};
	bool final;
	snprintf(td->name, sizeof(td->name), "%s", thread_role(&tf, &final));
	td->truncated = ws.end != UNWIND_COMPLETE;
	if (th == core_crashed_thread(&ct->cf)) {
		td->crashed = true;
		td->signal = th->signo ? th->signo : th->cursig;
	}
	state_damage(td, &before, &ct->mem.miss, m != NULL);
}

static void describe_process(const struct core_target *ct, struct process_dump *d)
{
	d->pid = ct->cf.pid ? ct->cf.pid : ct->cf.threads[0].tid;
	snprintf(d->comm, sizeof(d->comm), "%s", ct->cf.fname[0] ? ct->cf.fname : "?");
	struct strbuf b;
	sb_init(&b);
	if (ct->have_rt)
		v8_runtime_describe(&ct->rt, &b);
	else
		sb_add(&b, "no V8 (native frames only)");
	snprintf(d->runtime, sizeof(d->runtime), "%s", b.s);
	sb_free(&b);
	snprintf(d->source, sizeof(d->source), "core file %s", ct->cf.path);
	for (size_t i = 0; i < ct->nwarnings; i++)
		process_dump_warn(d, ct->warnings[i]);
}

static int print_stacks(struct core_target *ct, const struct options *o)
{
	struct core_walk *w = xcalloc(1, sizeof(*w));
	w->ct = ct;
	intern_init(&w->strings);
	intern_set_budget(&w->strings, INTERN_TARGET_BUDGET, INTERN_OVERFLOW_NAME);
	stackwalk_init(&w->sw, &ct->as, ct->have_rt ? &ct->rt : NULL, &w->strings,
		       o->full_native_names);
	w->sw.async.on = o->async; /* (a core's memory stays as it is: nothing is read again) */
	if (!o->no_source_maps && ct->have_rt) {
		/* the maps are read from the filesystem the core's paths name */
		sm_store_init(&w->sourcemaps, &w->strings, &w->sw.scripts, &ct->mem.base, &ct->rt.L, "");
		w->sw.sourcemaps = &w->sourcemaps;
	}
	struct process_dump d;
	process_dump_init(&d, &w->strings);
	describe_process(ct, &d);
	size_t damaged = 0;
	for (size_t i = 0; i < ct->cf.nthreads; i++) {
		walk_thread(w, &ct->cf.threads[i], &d);
		damaged += d.threads[d.nthreads - 1].damage[0] != 0;
	}
	process_dump_sort(&d);
	int rc = EXIT_ERROR;
	FILE *out = open_output(o);
	if (out)
		rc = close_output(o, out, o->json ? write_dump_json(&d, out) : write_dump_text(&d, out));
	for (size_t i = 0; i < d.nwarnings; i++)
		fprintf_text(stderr, "v8walk: warning: %s\n", d.warnings[i]);
	if (w->sw.sourcemaps && !o->quiet)
		sm_store_summary(w->sw.sourcemaps, stderr);
	if (damaged)
		fprintf_text(stderr, "v8walk: warning: %zu of %zu threads walked over memory missing from the "
				"core (see \"damaged\" in the output)\n", damaged, d.nthreads);
	print_limits(stderr, ct->cf.pid, NULL, &w->sw.scripts, &w->strings);
	if (rc == 0 && (d.nwarnings || damaged))
		rc = EXIT_DAMAGED_INPUT;
	process_dump_free(&d);
	if (w->sw.sourcemaps)
		sm_store_free(&w->sourcemaps);
	stackwalk_free(&w->sw);
	intern_free(&w->strings);
	free(w);
	return rc;
}

/* --core FILE --pending: the whole heap, as the core holds it. */
static int core_pending(struct core_target *ct, const struct options *o)
{
	struct core_walk *w = xcalloc(1, sizeof(*w));
	w->ct = ct;
	intern_init(&w->strings);
	stackwalk_init(&w->sw, &ct->as, &ct->rt, &w->strings, o->full_native_names);
	struct pending_report pr;
	memset(&pr, 0, sizeof(pr));
	struct process_dump d;
	process_dump_init(&d, &w->strings);
	describe_process(ct, &d);
	pr.pid = d.pid;
	snprintf(pr.runtime, sizeof(pr.runtime), "%s", d.runtime);
	snprintf(pr.source, sizeof(pr.source), "%s", d.source);
	const struct v8_heap h = {.mem = &ct->mem.base, .L = &ct->rt.L, .types = &w->sw.map_types};
	int rc = pending_run(&pr, &w->sw, &h, NULL, o);
	for (size_t i = 0; i < d.nwarnings; i++)
		fprintf_text(stderr, "v8walk: warning: %s\n", d.warnings[i]);
	if (rc == 0 && d.nwarnings)
		rc = EXIT_DAMAGED_INPUT;
	pending_report_free(&pr);
	process_dump_free(&d);
	stackwalk_free(&w->sw);
	intern_free(&w->strings);
	free(w);
	return rc;
}

int mode_core(const struct options *o)
{
	struct core_target_opts co = {
	    .core_path = o->core,
	    .exe = o->exe,
	    .force = o->have_force_version ? &o->force_version : NULL,
	};
	struct core_target ct;
	struct strbuf msg;
	sb_init(&msg);
	if (!core_target_open(&ct, &co, &msg)) {
		int rc = fail_msg(msg.s);
		sb_free(&msg);
		return rc;
	}
	sb_free(&msg);
	int rc;
	if (o->pending) {
		rc = ct.have_rt ? core_pending(&ct, o) : fail_msg("--pending: no V8 found in the core");
	} else if (o->version_info) {
		if (ct.have_rt) {
			print_version_info(stdout, &ct.rt, &ct.as);
			rc = EXIT_OK;
		} else {
			rc = fail_msg(ct.nwarnings ? ct.warnings[ct.nwarnings - 1] : "no V8 found in the core");
		}
	} else {
		rc = print_stacks(&ct, o);
	}
	core_target_close(&ct);
	return rc;
}
