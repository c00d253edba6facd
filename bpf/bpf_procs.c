/* bpf_procs.c — per-process state of an eBPF run. */
#include "bpf_procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sampling/container_id.h"
#include "../util/xalloc.h"

void bpf_procs_init(struct bpf_procs *ps, struct intern *strings, const struct target_opts *to)
{
	memset(ps, 0, sizeof(*ps));
	ps->strings = strings;
	ps->to = *to;
	image_share_init(&ps->images);
	ps->to.images = &ps->images;
	u64map_init(&ps->by_pid, 0);
}

static void close_proc(struct bpf_proc *p)
{
	if (!p->open)
		return;
	sample_walker_free(&p->walker);
	thread_labels_free(&p->labels);
	if (p->sw.sourcemaps) {
		if (!p->sourcemaps_quiet)
			sm_store_summary(p->sw.sourcemaps, stderr);
		sm_store_free(p->sw.sourcemaps);
	}
	stackwalk_free(&p->sw);
	perfmap_free(&p->pm);
	live_target_close(&p->tg);
	p->open = false;
}

void bpf_procs_free(struct bpf_procs *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		close_proc(ps->v[i]);
		free(ps->v[i]);
	}
	free(ps->v);
	image_share_free(&ps->images);
	u64map_free(&ps->by_pid);
	memset(ps, 0, sizeof(*ps));
}

struct bpf_proc *bpf_procs_find(const struct bpf_procs *ps, pid_t pid)
{
	uint64_t v;
	return u64map_get(&ps->by_pid, (uint64_t)pid, &v) ? ps->v[v - 1] : NULL;
}

static struct bpf_proc *new_proc(struct bpf_procs *ps, pid_t pid)
{
	struct bpf_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	XGROW(ps->v, ps->cap, ps->n + 1);
	ps->v[ps->n++] = p;
	u64map_put(&ps->by_pid, (uint64_t)pid, ps->n);
	return p;
}

/* Everything a sample of this process needs, from the process as it is now. */
static bool open_proc(struct bpf_procs *ps, struct bpf_proc *p, struct strbuf *why)
{
	if (!live_target_open(&p->tg, p->pid, &ps->to, why)) {
		live_target_close(&p->tg);
		return false;
	}
	stackwalk_init(&p->sw, &p->tg.as, &p->tg.rt, ps->strings, ps->to.full_native_names);
	p->sw.v8_self = ps->to.v8_self;
	p->sw.async.on = ps->to.async;
	p->sw.memo_on = true;
	perfmap_init(&p->pm, p->pid, ps->strings);
	p->sw.perfmap = &p->pm;
	if (!ps->to.no_source_maps) {
		sm_store_init_live(&p->sourcemaps, ps->strings, &p->sw.scripts, &p->tg.rt.L, p->pid);
		p->sw.sourcemaps = &p->sourcemaps;
		p->sourcemaps_quiet = ps->to.quiet;
	}
	sample_walker_init(&p->walker, &p->sw, &p->tg.as, p->pid);
	thread_labels_init(&p->labels, ps->strings, p->pid, p->tg.comm);
	p->name = intern_str(ps->strings, p->tg.comm);
	/* its CPU time is counted from here (bpf_backend_sample_opened takes it again for the
	 * processes opened before the sampler starts, as it puts them in the kernel's filter) */
	cpu_mark_take(&p->run_mark, p->pid, p->samples);
	p->period_mark = p->run_mark;
	p->container = container_of_pid(ps->strings, p->pid);
	p->open = true;
	p->state = PROC_READY;
	return true;
}

bool bpf_procs_add(struct bpf_procs *ps, pid_t pid, struct strbuf *why)
{
	if (bpf_procs_find(ps, pid))
		return true;
	struct bpf_proc *p = new_proc(ps, pid);
	if (open_proc(ps, p, why))
		return true;
	p->state = PROC_UNUSABLE;
	return false;
}

struct bpf_proc *bpf_procs_add_waiting(struct bpf_procs *ps, pid_t pid)
{
	struct bpf_proc *p = new_proc(ps, pid);
	p->state = PROC_WAIT_EXEC;
	return p;
}

bool bpf_proc_exec(struct bpf_procs *ps, struct bpf_proc *p)
{
	close_proc(p); /* a new program: nothing of the old address space holds */
	struct strbuf why;
	sb_init(&why);
	bool ok = open_proc(ps, p, &why);
	if (!ok) {
		snprintf(p->why_not, sizeof(p->why_not), "%s", why.s);
		p->state = PROC_WAIT_EXEC;
	}
	sb_free(&why);
	return ok;
}

void bpf_proc_exited(struct bpf_proc *p, bool status_known, int status)
{
	if (p->state == PROC_EXITED)
		return;
	p->state = PROC_EXITED;
	p->exit_known = status_known;
	p->exit_status = status;
	close_proc(p);
}

size_t bpf_procs_alive(const struct bpf_procs *ps)
{
	size_t n = 0;
	for (size_t i = 0; i < ps->n; i++)
		n += ps->v[i]->state != PROC_EXITED && ps->v[i]->state != PROC_UNUSABLE;
	return n;
}
