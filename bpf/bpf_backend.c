/* bpf_backend.c — the eBPF sampler's records turned into samples, and its operations for the
 * CLI's loop. */
#include "bpf_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../util/clock.h"
#include "../util/loop_wait.h"
#include "../util/proc_stat.h"
#include "../util/proc_status.h"
#include "../util/text_escape.h"
#include "../walker/gc_frames.h"

enum {
	HOUSEKEEPING_NS = 200 * 1000 * 1000, /* exits checked this often (besides exit records) */
	CONSUME_SLICE_NS = 50 * 1000 * 1000, /* records named per step before the loop looks up */
	READ_EVERY_NS = 10 * 1000 * 1000,    /* the ring is read this often on average, or every
					      * sampling period if that is shorter */
	STALLS_READ_EVERY_NS = 250 * 1000 * 1000, /* --stalls: records come in stalls only, and
						    * a stall's end wakes v8walk */
	FINAL_DRAIN_NS = 2000 * 1000 * 1000, /* records written before the end still named */
	RESCAN_NS = 2000 * 1000 * 1000,      /* --all-node: look for new node processes */
	RETRY_OPEN_NS = 10 * 1000 * 1000,    /* launch mode: V8 not mapped yet, look again */
	MAX_NEW_PIDS = 256,                  /* node processes added per rescan */
};

/* Kernel frames (innermost first) in front of the user frames. */
static int kernel_frames(struct bpf_backend *r, const struct v8w_record *rec, struct frame *out,
			 int max)
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
		f->name = name ? intern_str(r->strings, name) : r->s_kernel_unknown;
	}
	return n;
}

static void on_sample(struct bpf_backend *r, struct bpf_proc *p, const struct v8w_record *rec,
		      const uint8_t *mem, size_t mem_len)
{
	uint64_t now = now_ns();
	if (now > rec->time_ns && now - rec->time_ns > r->max_lag_ns)
		r->max_lag_ns = now - rec->time_ns;
	int nk = kernel_frames(r, rec, r->frames, BPF_BACKEND_MAX_FRAMES);
	struct walk_stats ws;
	unsigned long reads_before = p->walker.live.reads;
	int n = sample_walk(&p->walker, rec, mem, mem_len, r->frames + nk, STACKWALK_MAX_FRAMES, &ws);
	r->reads += p->walker.live.reads - reads_before;
	if (n < 0) {
		r->malformed++;
		return;
	}
	stackwalk_name_natives(&p->sw, r->frames + nk, n);
	/* a main thread's sleep counts only inside a collection (waiting for the GC's helpers); with
	 * --v8-self wherever it slept a sleep a signal interrupts, as V8's SIGPROF wakes it and
	 * samples it there (ptrace stops a thread in such a sleep, and in no other) */
	bool slept = (rec->flags & V8W_F_SLEPT) && (rec->flags & V8W_F_WAITED);
	bool in_gc = slept && frames_in_gc(r->strings, r->frames + nk, n);
	if (slept && !in_gc && (!p->sw.v8_self || (rec->flags & V8W_F_UNWAKEABLE)))
		return;
	/* --v8-self: a sample V8's profiler would have recorded none for */
	if (ws.v8_discarded) {
		r->v8_discarded++;
		return;
	}
	bool complete = ws.end == UNWIND_COMPLETE;
	struct sample sm = {.time_ns = rec->time_ns, .pid = p->pid, .tid = (pid_t)rec->tid,
			    .process_name = p->name, .container = p->container,
			    .thread_role = thread_labels_role_id(&p->labels, (pid_t)rec->tid, rec->comm,
								 r->frames + nk, n, complete),
			    .frames = r->frames, .n = nk + n,
			    .stall_start = rec->flags & V8W_F_STALL ? rec->stall_start : 0};
	/* a wait for a CPU of `weight` periods is that many samples of the stack it waited in, a
	 * period apart from when it began, as the cpu-clock ticks would have been had it run */
	unsigned long weight = 1;
	if (rec->flags & V8W_F_WAITED) {
		weight = rec->weight < 1 ? 1 : rec->weight > V8W_MAX_WEIGHT ? V8W_MAX_WEIGHT : rec->weight;
		/* --v8-self: one sample for a wait for a CPU, as V8's pending SIGPROF takes one when
		 * the thread runs again (ptrace/sampler.c deliver_queue); and for a sleep in a
		 * collection: V8's signal wakes the thread, but its handler runs only once the thread
		 * has a CPU, which the collector's helper threads hold until they are done, when the
		 * sleep ends (ptrace's stop of a sleeping thread waits the same way). A sleep
		 * elsewhere (a lock, a condition, a synchronous wait) keeps a sample per period: each
		 * signal wakes the thread, whose handler runs and which sleeps again */
		if (p->sw.v8_self && (!slept || in_gc))
			weight = 1;
		if (in_gc)
			r->gc_slept += weight;
		else if (slept)
			r->slept += weight;
		else if (rec->flags & V8W_F_STOPPED)
			r->stopped += weight;
		else
			r->waited += weight;
	}
	for (unsigned long k = 0; k < weight; k++) {
		sm.time_ns = rec->time_ns + k * r->period_ns;
		r->sink(r->sink_ctx, &sm);
		if (r->stalls && sm.stall_start)
			stall_tracker_sample(r->stalls, &sm, sm.stall_start);
	}
	u64map_put(&r->tids, ((uint64_t)rec->tgid << 32 | rec->tid) + 1, 1);
	p->samples += weight;
	r->samples += weight;
	if (!complete) {
		r->truncated += weight;
		if (rec->fp_end == V8W_FP_FULL || rec->fp_end == V8W_FP_DEPTH)
			r->too_deep += weight;
	}
	if (ws.js_frames == 0)
		r->no_js += weight;
}

/* --stalls: a process whose main thread is outside its loop's wait as the kernel starts to
 * watch it may be inside a stall already (the one someone attached for): its iteration is
 * counted from now. */
static void watch_loop(struct bpf_backend *r, pid_t pid)
{
	long nr;
	if (!r->stalls || (proc_thread_syscall(pid, &nr) && syscall_is_loop_wait(nr)))
		return;
	uint64_t now = now_ns();
	if (bpf_sampler_loop_busy(r->bs, pid, now) == 0)
		stall_tracker_began_before(r->stalls, pid, now);
}

/* A launched program that called execve but had no V8 then (node on libnode.so maps it later, a
 * script's interpreter may execve node): look again, at most every RETRY_OPEN_NS. */
static void retry_open(struct bpf_backend *r, struct bpf_proc *p)
{
	uint64_t now = now_ns();
	if (now - p->last_try_ns < RETRY_OPEN_NS)
		return;
	p->last_try_ns = now;
	if (node_scan_pid(&r->scan, p->pid) && bpf_proc_exec(&r->procs, p))
		watch_loop(r, p->pid);
}

/* A target ended without its exit record (lost): the kernel's filter forgets its pid here, as
 * the exit tracepoint does otherwise (the pid may be reused; --all-node needs the slot). */
static void target_exited(struct bpf_backend *r, struct bpf_proc *p, bool known, int status)
{
	bpf_proc_exited(p, known, status);
	bpf_sampler_remove_target(r->bs, p->pid);
}

static int on_record(void *ctx, const struct v8w_record *rec, const uint8_t *mem, size_t mem_len)
{
	struct bpf_backend *r = ctx;
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
		if (bpf_proc_exec(&r->procs, p))
			watch_loop(r, p->pid);
		break;
	case V8W_REC_EXIT: /* the kernel already dropped it from its filter */
		bpf_proc_exited(p, true, rec->exit_code);
		break;
	case V8W_REC_STALL:
		if (r->stalls)
			stall_tracker_end(r->stalls, p->pid, p->name, rec->time_ns, rec->stall_ns);
		break;
	}
	return 0;
}

/* Has the process ended: gone, or a zombie whose every thread has passed the exit tracepoint?
 * For processes that are not our children. Its main thread is a zombie as soon as it exits, while
 * the others may still be exiting, and the last of them writes the exit record: a thread is
 * released (and leaves the count of /proc's "Threads") only after it passed the tracepoint. */
static bool process_ended(pid_t pid)
{
	char who[32], state[64], threads[32];
	snprintf(who, sizeof(who), "%d", (int)pid);
	if (!proc_status_field(who, "State", state, sizeof(state)))
		return true;
	if (state[0] != 'Z' && state[0] != 'X')
		return false;
	return !proc_status_field(who, "Threads", threads, sizeof(threads)) || atoi(threads) <= 1;
}

/* Exits the kernel did not report (a lost record), and the launched child's status. */
static void check_exits(struct bpf_backend *r)
{
	for (size_t i = 0; i < r->procs.n; i++) {
		struct bpf_proc *p = r->procs.v[i];
		if (p->state == PROC_EXITED)
			continue;
		if (r->child && p->pid == r->child) {
			int st;
			if (!r->child_reaped && waitpid(p->pid, &st, WNOHANG) == p->pid) {
				target_exited(r, p, true, st);
				r->child_reaped = true;
			}
			continue;
		}
		if (!process_ended(p->pid))
			continue;
		/* its exit record was written before it became a zombie: read what the ring still
		 * holds (a consume within its slice may have stopped short of it under load) */
		bpf_sampler_consume(r->bs, FINAL_DRAIN_NS);
		if (p->state != PROC_EXITED)
			target_exited(r, p, false, 0);
	}
}

static bool already_known(void *ctx, pid_t pid)
{
	return bpf_procs_find(ctx, pid) != NULL;
}

void bpf_backend_add_node_processes(struct bpf_backend *r)
{
	pid_t pids[MAX_NEW_PIDS];
	size_t n = node_scan(&r->scan, already_known, &r->procs, pids, MAX_NEW_PIDS);
	for (size_t i = 0; i < n; i++) {
		struct strbuf why;
		sb_init(&why);
		if (bpf_procs_add(&r->procs, pids[i], &why) &&
		    bpf_sampler_add_target(r->bs, pids[i]) == 0)
			watch_loop(r, pids[i]);
		else if (!r->quiet)
			fprintf_text(stderr, "v8walk: skipping %s\n", why.s);
		sb_free(&why);
	}
}

void bpf_backend_init(struct bpf_backend *b, struct intern *strings, const struct target_opts *to,
		      sample_sink_fn sink, void *sink_ctx, bool all_node)
{
	memset(b, 0, sizeof(*b));
	b->strings = strings;
	b->sink = sink;
	b->sink_ctx = sink_ctx;
	b->all_node = all_node;
	b->quiet = to->quiet;
	bpf_procs_init(&b->procs, strings, to);
	node_scan_init(&b->scan);
	u64map_init(&b->tids, 0);
	b->s_kernel_unknown = intern_str(strings, "[unknown] (kernel)");
}

bool bpf_backend_start(struct bpf_backend *b, const struct bpf_sampler_config *cfg,
		       struct bpf_failure *fail)
{
	b->period_ns = bpf_sampler_period_ns(cfg);
	b->bs = bpf_sampler_open(cfg, on_record, b, fail);
	return b->bs != NULL;
}

bool bpf_backend_load_kallsyms(struct bpf_backend *b)
{
	return b->have_ksyms = kallsyms_load(&b->ksyms, "/proc/kallsyms");
}

bool bpf_backend_sample_opened(struct bpf_backend *b)
{
	for (size_t i = 0; i < b->procs.n; i++) {
		/* its CPU time is counted from the moment the kernel samples it */
		cpu_mark_take(&b->procs.v[i]->run_mark, b->procs.v[i]->pid, b->procs.v[i]->samples);
		b->procs.v[i]->period_mark = b->procs.v[i]->run_mark;
		int err = bpf_sampler_add_target(b->bs, b->procs.v[i]->pid);
		if (err) {
			fprintf_text(stderr, "v8walk: cannot add process %d to the eBPF sampler: %s\n",
				(int)b->procs.v[i]->pid, strerror(-err));
			return false;
		}
		watch_loop(b, b->procs.v[i]->pid);
	}
	return true;
}

int bpf_backend_add_child(struct bpf_backend *b, pid_t pid)
{
	b->child = pid;
	bpf_procs_add_waiting(&b->procs, pid);
	return bpf_sampler_add_target(b->bs, pid);
}

/* Each sampled process's samples since its mark (the run's, or the period's) against its CPU
 * time since (cpu_share.h); the run's are compared with what sampling's end found. */
static void check_shares(struct bpf_backend *b, bool period, const char *when, struct strbuf *note)
{
	if (b->stalls) /* --stalls samples a loop only while it stalls: no share of its CPU is due */
		return;
	double rate = 1e9 / (double)(b->period_ns ? b->period_ns : 1);
	for (size_t i = 0; i < b->procs.n; i++) {
		struct bpf_proc *p = b->procs.v[i];
		if (!p->open || p->state != PROC_READY)
			continue;
		struct cpu_mark now = p->end_mark;
		if (period)
			cpu_mark_take(&now, p->pid, p->samples);
		cpu_share_warn(stderr, period ? &p->period_mark : &p->run_mark, &now, p->pid,
			       intern_get(b->strings, p->name), rate, when, note);
		if (period)
			p->period_mark = now;
	}
}

void bpf_backend_check_period(struct bpf_backend *b, unsigned long seq, struct strbuf *note)
{
	char when[48];
	snprintf(when, sizeof(when), "in period %lu", seq);
	check_shares(b, true, when, note);
}

void bpf_backend_check_run(struct bpf_backend *b)
{
	check_shares(b, false, "over the run", NULL);
}

/* Unload the program: the kernel's counts are kept. */
static void unload(struct bpf_backend *b)
{
	if (!b->bs)
		return;
	bpf_sampler_counters(b->bs, &b->kernel);
	bpf_sampler_close(b->bs);
	b->bs = NULL;
}

void bpf_backend_free(struct bpf_backend *b)
{
	unload(b);
	if (b->have_ksyms)
		kallsyms_free(&b->ksyms);
	u64map_free(&b->tids);
	node_scan_free(&b->scan);
	bpf_procs_free(&b->procs);
}

/* None: the samples wake nobody (bpf_sampler.bpf.c), the ring is read on the backend's own
 * jittered timer (step); with --stalls, a stall's end and a ring filling up do. */
static int wait_fd(void *ctx)
{
	const struct bpf_backend *b = ctx;
	return b->stalls ? bpf_sampler_fd(b->bs) : -1;
}

static void start(void *ctx, uint64_t now, uint64_t end)
{
	struct bpf_backend *b = ctx;
	b->start_ns = b->last_check_ns = b->last_scan_ns = now;
	jitter_seed(&b->rng, now);
	b->read_every_ns = b->stalls ? STALLS_READ_EVERY_NS
			   : b->period_ns < READ_EVERY_NS ? b->period_ns : READ_EVERY_NS;
	b->half_ns = end ? now + (end - now) / 2 : 0;
}

/* The counters now. */
static void mark(struct bpf_backend *b, struct bpf_mark *m)
{
	*m = (struct bpf_mark){.taken = true, .time_ns = now_ns(), .cpu_ns = own_cpu_ns(),
			       .samples = b->samples, .reads = b->reads};
}

bool bpf_backend_steady(const struct bpf_backend *b, double *reads_per_sample, double *cpu_percent,
			double *cpu_us_per_sample)
{
	const struct bpf_mark *h = &b->half, *e = &b->fin;
	if (!h->taken || !e->taken || e->samples <= h->samples || e->time_ns <= h->time_ns)
		return false;
	*reads_per_sample = (double)(e->reads - h->reads) / (double)(e->samples - h->samples);
	*cpu_percent = 100.0 * (double)(e->cpu_ns - h->cpu_ns) / (double)(e->time_ns - h->time_ns);
	*cpu_us_per_sample = (double)(e->cpu_ns - h->cpu_ns) / (double)(e->samples - h->samples) / 1e3;
	return true;
}

static uint64_t step(void *ctx, uint64_t now, bool fd_ready)
{
	struct bpf_backend *b = ctx;
	(void)fd_ready;
	/* the ring is read at every step: those come at random times (this timer, the loop's hooks),
	 * never in answer to a sample (--stalls: also at a stall's end) */
	bpf_sampler_consume(b->bs, CONSUME_SLICE_NS);
	now = now_ns();
	uint64_t next = now + jitter_around(&b->rng, b->read_every_ns);
	if (b->half_ns && !b->half.taken && now >= b->half_ns)
		mark(b, &b->half);
	if (now - b->last_check_ns >= HOUSEKEEPING_NS) {
		check_exits(b);
		b->last_check_ns = now;
	}
	if (b->all_node && now - b->last_scan_ns >= RESCAN_NS) {
		bpf_backend_add_node_processes(b);
		b->last_scan_ns = now;
	}
	if (!b->all_node && bpf_procs_alive(&b->procs) == 0)
		return 0;
	if (b->last_check_ns + HOUSEKEEPING_NS < next)
		next = b->last_check_ns + HOUSEKEEPING_NS;
	if (b->all_node && b->last_scan_ns + RESCAN_NS < next)
		next = b->last_scan_ns + RESCAN_NS;
	return next;
}

static void end(void *ctx)
{
	struct bpf_backend *b = ctx;
	/* what the kernel wrote before the end */
	if (bpf_sampler_consume(b->bs, FINAL_DRAIN_NS) == -EAGAIN && !b->quiet)
		fprintf(stderr, "v8walk: the last records were left unnamed: naming them took over "
				"%d s\n", FINAL_DRAIN_NS / 1000000000);
	b->end_ns = now_ns();
	mark(b, &b->fin);
	for (size_t i = 0; i < b->procs.n; i++)
		if (b->procs.v[i]->open)
			cpu_mark_take(&b->procs.v[i]->end_mark, b->procs.v[i]->pid, b->procs.v[i]->samples);
}

static void stats(void *ctx, struct run_stats *out)
{
	struct bpf_backend *b = ctx;
	struct bpf_sampler_counts k = b->kernel;
	if (b->bs)
		bpf_sampler_counters(b->bs, &k);
	size_t sampled = 0; /* processes that were opened (a label is given then) */
	for (size_t i = 0; i < b->procs.n; i++)
		sampled += b->procs.v[i]->name != 0;
	*out = (struct run_stats){.sampler = "eBPF", .samples = b->samples, .no_js = b->no_js,
				  .truncated = b->truncated, .malformed = b->malformed,
				  .missed = (unsigned long)k.lost, .missed_as = "lost",
				  .stale_waits = (unsigned long)k.stale,
				  .waited = b->waited, .stopped = b->stopped,
				  .gc_slept = b->gc_slept, .slept = b->slept, .v8_discarded = b->v8_discarded,
				  .processes = sampled, .threads = b->tids.len,
				  .max_lag_ns = b->max_lag_ns, .start_ns = b->start_ns,
				  .end_ns = b->end_ns};
	for (size_t i = 0; i < b->procs.n; i++) {
		const struct async_stats *as = &b->procs.v[i]->sw.async.st;
		out->async_sites += as->sites;
		out->async_chains += as->chains;
		out->async_frames += as->frames;
		out->async_moved += as->moved;
		out->async_changed += as->changed;
	}
}

static void close_targets(void *ctx)
{
	unload(ctx);
}

const struct sampler_backend_ops bpf_backend_ops = {
	.name = "eBPF",
	.wait_fd = wait_fd,
	.start = start,
	.step = step,
	.end = end,
	.stats = stats,
	.close = close_targets,
};
