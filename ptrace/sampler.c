/* sampler.c — the live sampling loop over ptrace. */
#include "sampler.h"

#include "arch_defs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sampling/container_id.h"
#include "../util/clock.h"
#include "../util/loop_wait.h"
#include "../util/xalloc.h"
#include "../walker/gc_frames.h"

enum {
	STACK_RED_ZONE = 128,
	THREAD_SCAN_NS = 100 * 1000 * 1000,
	MAPS_REFRESH_NS = 50 * 1000 * 1000,
	SNAPSHOT_BUDGET = 8 << 20,
	MAX_WAITING = 256,                 /* captures waiting to be decoded */
	MAX_OWED = 100000,                 /* ticks one late stop may stand for */
	MAX_BOOST_NS = 2 * 1000 * 1000,     /* longest wait for stops at real-time priority */
};

struct thread_info {
	pid_t tid;
	char requested_state; /* /proc state when its pending sample was requested */
	uint32_t owed;        /* ticks that came while that stop was awaited, the thread runnable */
};

/* Why the kernel's stack copy is not asked for (NULL: it is): --stack-copy read, or auto on a
 * machine whose kernels it is not the default on (arch_defs.h) */
static const char *stack_copy_why_not(enum stack_copy_mode m)
{
	if (m == STACK_COPY_READ)
		return "--stack-copy read";
	if (m == STACK_COPY_AUTO && !ARCH_KERNEL_STACK_COPY_BY_DEFAULT)
		return "on " ARCH_NAME " the kernel copies them with --stack-copy kernel only (Linux 6.1 on "
		       "arm64 locked up under the perf events that copy takes)";
	return NULL;
}

void sampler_init(struct sampler *s, pid_t pid, const struct sampler_opts *o, struct tracer *tr,
		  struct stackwalk *sw, struct addrspace *as, struct intern *strings,
		  sample_sink_fn sink, void *sink_ctx)
{
	memset(s, 0, sizeof(*s));
	s->opts = *o;
	if (s->opts.stack_chunk == 0)
		s->opts.stack_chunk = 64 << 10;
	s->tr = tr;
	s->sw = sw;
	s->as = as;
	s->strings = strings;
	s->sink = sink;
	s->sink_ctx = sink_ctx;
	memsrc_live_init(&s->live, pid);
	sw->async.live = &s->live.base; /* an async chain is read again from the process itself */
	capture_pool_init(&s->captures, &s->live.base, SNAPSHOT_BUDGET);
	rt_sched_init(&s->rt, !o->normal_priority);
	switch_copy_init(&s->kcopy, pid, s->opts.stack_chunk, stack_copy_why_not(o->stack_copy));
	if (o->stop_limit_ns) {
		if (!s->rt.allowed)
			s->copier_why = "no real-time priority (needs root or CAP_SYS_NICE)";
		else
			s->copier = stack_copier_start(s->rt.fifo_priority, &s->copier_why);
	}
	jitter_seed(&s->rng, now_ns());
	char fn[64], comm[32] = "node";
	snprintf(fn, sizeof(fn), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(fn, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	thread_labels_init(&s->labels, strings, pid, comm);
	maps_refresh_init(&s->maps_fresh, MAPS_REFRESH_NS);
	s->pid = pid;
	s->process_name = intern_str(strings, comm);
	s->container = container_of_pid(strings, pid);
}

/* Forget the captured samples still queued. */
static void drop_queue(struct sampler *s)
{
	for (size_t i = 0; i < s->nqueue; i++)
		free(s->queue[i].frames);
	s->nqueue = 0;
}

void sampler_free(struct sampler *s)
{
	drop_queue(s);
	free(s->queue);
	stack_copier_stop(s->copier);
	switch_copy_free(&s->kcopy);
	rt_sched_normal(&s->rt);
	capture_pool_free(&s->captures);
	memsrc_live_close(&s->live);
	free(s->tinfo);
	thread_labels_free(&s->labels);
}

static struct thread_info *tinfo_for(struct sampler *s, pid_t tid)
{
	for (size_t i = 0; i < s->ntinfo; i++)
		if (s->tinfo[i].tid == tid)
			return &s->tinfo[i];
	XGROW(s->tinfo, s->captinfo, s->ntinfo + 1);
	struct thread_info *ti = &s->tinfo[s->ntinfo++];
	memset(ti, 0, sizeof(*ti));
	ti->tid = tid;
	return ti;
}

/* The thread's role from what the sampler knows about it and one of its samples. */
static const char *sampled_role(struct sampler *s, struct tthread *t, const struct captured_sample *c,
				bool *final)
{
	return thread_labels_role(&s->labels, c->tid, t ? t->comm : NULL, c->frames, c->n,
				  c->ws.end == UNWIND_COMPLETE, final);
}

static uint32_t role_of(struct sampler *s, struct tthread *t, const struct captured_sample *c)
{
	return thread_labels_role_id(&s->labels, c->tid, t ? t->comm : NULL, c->frames, c->n,
			    c->ws.end == UNWIND_COMPLETE);
}

/* Copy the stack: inline, or by the helper within the stop limit (kept in c->stack_buf and put
 * into the snapshot once the thread runs again). false: the limit passed (or a late copy still
 * holds the helper), the sample is dropped. */
static bool copy_stack(struct sampler *s, struct tthread *t, struct capture *c, uint64_t from,
		       size_t len)
{
	if (!s->copier) {
		memsnap_add(&c->snap, from, len);
		return true;
	}
	if (c->stack_cap < len) { /* len ≤ stack_chunk (capture): one buffer serves every stop */
		free(c->stack_buf);
		c->stack_buf = xmalloc(s->opts.stack_chunk);
		c->stack_cap = s->opts.stack_chunk;
	}
	ssize_t got = 0;
	enum copy_result r = stack_copier_copy(s->copier, t->tid, from, c->stack_buf, len,
					       s->opts.stop_limit_ns, &got);
	if (r == COPY_LATE) { /* the buffer is the helper's now */
		c->stack_buf = NULL;
		c->stack_cap = 0;
	}
	if (r != COPY_OK) {
		s->st.cut++;
		return false;
	}
	s->live.reads++;
	c->stack_from = from;
	c->stack_got = got > 0 ? (size_t)got : 0;
	return true;
}

/* The stack the kernel copied as the thread switched out (into this stop, or once before it since
 * it was asked: switch_copy.h), when it did. The registers stay the stop's (PTRACE_GETREGS: all of
 * them, where a record taken in the kernel has no callee-saved ones but bp) unless the record is
 * of an earlier switch: then they are the record's. */
static bool take_kernel_copy(struct sampler *s, struct tthread *t, struct capture *c, struct switch_take *tk)
{
	if (!switch_copy_take(&s->kcopy, t->tid, c->regs.r[REG_SP], c->regs.r[REG_PC], tk))
		return false;
	const struct regset *r = &tk->rec.regs;
	if (r->r[REG_SP] != c->regs.r[REG_SP] || r->r[REG_PC] != c->regs.r[REG_PC]) {
		uint64_t pac_mask = c->regs.pac_mask; /* not in a record; the process's own */
		c->regs = *r;
		c->regs.pac_mask = pac_mask;
		if (tk->rec.time_ns < c->time_ns)
			c->time_ns = tk->rec.time_ns;
	}
	s->st.kernel_copies++;
	return true;
}

/* The kernel's copy of [sp, to), lent by its ring: put into the snapshot once the thread runs
 * again (decode_capture). */
static void keep_kernel_copy(struct capture *c, const struct switch_take *tk, uint64_t sp, uint64_t to)
{
	const struct switch_record *r = &tk->rec;
	size_t len = to > sp ? (size_t)(to - sp) : 0;
	c->lent = true;
	c->lent_stack = r->stack;
	c->lent_len = len < r->stack_len ? len : r->stack_len;
	c->lent_more = r->more;
	c->lent_more_len = len - c->lent_len < r->more_len ? len - c->lent_len : r->more_len;
}

/* The kernel's copy lent to c put into its snapshot, and the ring given back (switch_copy.h): once
 * the thread runs again, before the decode, or before the thread's next stop when the decode has
 * not come yet (a ring that still lends its record has none for the next stop, whose stack v8walk
 * would then copy with process_vm_readv: a read that waits for the target's memory-map lock, the
 * milliseconds the kernel's copy is there to avoid). */
static void take_back_lent(struct sampler *s, struct capture *c)
{
	if (!c->lent)
		return;
	if (c->lent_len + c->lent_more_len)
		memsnap_put2(&c->snap, c->regs.r[REG_SP], c->lent_stack, c->lent_len, c->lent_more,
			     c->lent_more_len);
	switch_copy_give_back(&s->kcopy, c->tid);
	c->lent = false;
}

/* Copy what must be consistent with the stop of one thread: its registers and its stack. */
static bool capture(struct sampler *s, struct tthread *t, struct capture *c)
{
	uint64_t t0 = now_ns();
	/* (it waits for the thread to be off its CPU: the kernel's copy, if any, is written) */
	if (regset_read_ptrace(t->tid, &c->regs) != 0)
		return false;
	uint64_t t1 = now_ns();
	if (!s->pac_known) {
		s->pac_mask = regset_pac_mask_ptrace(t->tid);
		s->pac_known = true;
	}
	c->regs.pac_mask = s->pac_mask;
	struct switch_take tk;
	bool kernel = take_kernel_copy(s, t, c, &tk);
	struct stack_bounds b;
	uint64_t sp = c->regs.r[REG_SP];
	/* a stack v8walk has not seen mapped (a new thread) is copied from sp; its mapping is read
	 * once the thread runs again (reading /proc/PID/maps can take milliseconds) */
	c->bounds_known = stack_bounds_known(s->as, sp, &b);
	if (!c->bounds_known) {
		b.lo = sp - STACK_RED_ZONE;
		b.hi = sp + s->opts.stack_chunk;
	}
	c->bounds = b;
	uint64_t from = sp - STACK_RED_ZONE < b.lo ? b.lo : sp - STACK_RED_ZONE;
	uint64_t to = from + s->opts.stack_chunk;
	if (to > b.hi)
		to = b.hi;
	bool ok = true;
	if (kernel)
		keep_kernel_copy(c, &tk, sp, to);
	else if (to > from)
		ok = copy_stack(s, t, c, from, (size_t)(to - from));
	uint64_t t2 = now_ns();
	s->st.regs_ns += t1 - t0;
	s->st.stack_ns += t2 - t1;
	if (t2 - t1 > s->st.stack_max_ns)
		s->st.stack_max_ns = t2 - t1;
	return ok;
}

void sampler_on_stop(void *ctx, struct tthread *t)
{
	struct sampler *s = ctx;
	uint64_t t0 = now_ns();
	if (t0 - t->interrupt_ns > s->st.max_lag_ns)
		s->st.max_lag_ns = t0 - t->interrupt_ns;
	struct thread_info *ti = tinfo_for(s, t->tid);
	uint32_t ticks = 1 + ti->owed;
	ti->owed = 0;
	struct capture *c = capture_pool_take(&s->captures, MAX_WAITING);
	if (!c) {
		s->st.missed += ticks; /* resumed untouched: too many copies wait to be decoded */
		switch_copy_disarm(&s->kcopy, t->tid);
		return;
	}
	unsigned long reads = s->live.reads;
	c->tid = t->tid;
	c->time_ns = t0;
	c->asked_ns = t->interrupt_ns < t0 ? t->interrupt_ns : t0;
	c->ticks = ticks;
	c->state = ti->requested_state;
	c->ok = capture(s, t, c);
	switch_copy_disarm(&s->kcopy, t->tid); /* (a capture that failed before taking its record) */
	if (!c->ok)
		s->st.missed += ticks - 1; /* the stop's own tick: counted as cut, or not at all */
	/* the tracer resumes the thread right after we return */
	uint64_t done = now_ns();
	c->held_ns = done - t0;
	s->st.stop_reads += s->live.reads - reads;
	histogram_add(&s->st.pauses, c->held_ns);
	if (t->tid == s->pid) {
		histogram_add(&s->st.main_pauses, c->held_ns);
		s->st.main_stops_ns += done - c->asked_ns;
	}
}

/* A GC moved what the frames were named from: they are not guessed (nor is a JS frame whose decode
 * failed on what had moved called unknown code). */
static void mark_unvalidated(struct sampler *s, struct frame *f, int n)
{
	uint32_t moved = intern_str(s->strings, "[JS frame moved by GC before it was named]");
	for (int i = 0; i < n; i++) {
		bool failed_js = f[i].kind == FK_UNKNOWN && f[i].name == s->sw->s_unknown_jit;
		if (f[i].kind != FK_JS && f[i].kind != FK_JS_INLINED && f[i].kind != FK_JS_ASYNC &&
		    !failed_js)
			continue;
		memset(&f[i], 0, sizeof(f[i]));
		f[i].kind = FK_UNKNOWN;
		f[i].name = moved;
	}
	s->st.unvalidated++;
}

/* Re-read the identity of what the frames whose decode read the live process were named from
 * (all the copied objects when a read was not a frame's); true when none changed. */
static bool validate_frames_read_live(struct sampler *s, struct capture *c, const struct prefetch_hints *hints)
{
	const struct stackwalk *sw = s->sw;
	uint64_t only[PREFETCH_MAX_OBJECTS];
	size_t n = 0;
	for (int i = 0; i < hints->nraw && !sw->read_live_outside; i++)
		if (sw->read_live[i])
			n += (size_t)prefetch_frame_objects(sw->rt, hints, &c->snap.base, i, only + n,
							    PREFETCH_MAX_OBJECTS - (int)n);
	bool all = sw->read_live_outside || n == PREFETCH_MAX_OBJECTS;
	return validate_prefetched(&sw->rt->L, &s->sw->map_types, &c->snap.base, &s->live.base,
				   &sw->prefetched, all ? NULL : only, n, &s->st.validation);
}

/* Unwind and name the frames of one capture; the thread runs again, so all but the copied stack is
 * read now: the frames are kept only if the objects their slots name were not moved since the stop
 * (prefetched_moved) and what was read through those did not move during the decode
 * (walker/validate.h). */
static void decode_capture(struct sampler *s, struct capture *c)
{
	/* a stack outside the known mappings (a new thread): re-read the maps; its bounds are
	 * within the mapping, and within what was copied (the rest of the stack has moved on) */
	struct stack_bounds b;
	if (!c->bounds_known && stack_bounds_at(&s->maps_fresh, s->as, c->regs.r[REG_SP], &b)) {
		c->bounds.lo = b.lo > c->bounds.lo ? b.lo : c->bounds.lo;
		c->bounds.hi = b.hi < c->bounds.hi ? b.hi : c->bounds.hi;
	}
	/* the copied stack is unwound, and the objects its JS frames' slots name copied, now that
	 * the thread runs again: a GC may have moved one since, which leaves a forwarding word
	 * where its map was (then the sample is marked, below) */
	if (c->stack_got) /* copied by the helper */
		memsnap_put(&c->snap, c->stack_from, c->stack_buf, c->stack_got);
	take_back_lent(s, c); /* copied by the kernel, left in its ring */
	uint64_t t0 = now_ns();
	stackwalk_unwind(s->sw, &c->regs, &c->snap.base, &c->bounds, &c->ws);
	/* code outside the known mappings (new libraries, grown JIT space): re-read the maps and
	 * unwind again */
	if (c->bounds_known && maps_refresh_after_walk(&s->maps_fresh, s->as, s->sw->raw, c->ws.raw_frames))
		stackwalk_unwind(s->sw, &c->regs, &c->snap.base, &c->bounds, &c->ws);
	s->st.objects_ns += c->ws.prefetch_ns;
	s->st.unwind_ns += now_ns() - t0 - c->ws.prefetch_ns;
	bool moved = prefetched_moved(s->sw->rt, &c->snap.base, &s->sw->prefetched);
	/* what the copied objects name (SFIs, tables, Code) is read now, and checked afterwards */
	unsigned long live_reads = c->snap.misses;
	struct prefetch_hints hints = {.types = &s->sw->map_types, .positions = &s->sw->positions,
				       .raw = s->sw->raw, .nraw = c->ws.raw_frames, .skip = s->sw->memo_hit};
	prefetch_js_details(s->sw->rt, &hints, &c->snap.base, &s->sw->prefetched);
	struct walk_stats ws = c->ws;
	/* what the decode reads beyond this point (and reads again from what it copied) is late:
	 * counted per frame, the frames that did are validated */
	memsnap_mark_late(&c->snap);
	s->sw->live_reads = &c->snap.late_reads;
	int n = stackwalk_decode(s->sw, &c->regs, &c->snap.base, s->frames, STACKWALK_MAX_FRAMES, &ws);
	s->sw->live_reads = NULL;
	/* a decode served entirely by the snapshot (the stack copied at the stop, the objects batched
	 * after it) and by caches checked against it read nothing more that could move: only one that
	 * read the live process besides is validated (also when no JS frame could be named: the
	 * reason may be what moved), and only the objects of its frames that did */
	bool unvalidated = moved ||
			   (s->sw->rt && (ws.js_frames || ws.bad_v8) && c->snap.misses != live_reads &&
			    !validate_frames_read_live(s, c, &hints));
	stackwalk_memo_commit(s->sw, !unvalidated);
	if (unvalidated)
		mark_unvalidated(s, s->frames, n);
	XGROW(s->queue, s->capqueue, s->nqueue + 1);
	struct captured_sample *q = &s->queue[s->nqueue++];
	q->moved = unvalidated;
	q->tid = c->tid;
	q->time_ns = c->time_ns;
	q->asked_ns = c->asked_ns;
	q->ticks = c->ticks ? c->ticks : 1;
	q->state = c->state;
	q->pause_ns = c->held_ns;
	q->ws = ws;
	q->n = n;
	q->frames = xmalloc(sizeof(*q->frames) * (size_t)(n ? n : 1));
	memcpy(q->frames, s->frames, sizeof(*q->frames) * (size_t)n);
}

/* Decode every capture waiting (their threads all run again). */
static void decode_waiting(struct sampler *s)
{
	for (size_t i = 0; i < s->captures.used; i++) {
		struct capture *c = s->captures.v[i];
		if (c->ok)
			decode_capture(s, c);
		/* a buffer a late copy took is replaced now that the thread runs, not in its next
		 * stop: an allocation there can wait for v8walk's own memory-map lock */
		if (s->copier && c->stack_cap < s->opts.stack_chunk) {
			free(c->stack_buf);
			c->stack_buf = xmalloc(s->opts.stack_chunk);
			c->stack_cap = s->opts.stack_chunk;
		}
	}
	capture_pool_release(&s->captures);
}

/* Stage 2 for every captured sample: the threads already run again. */
static void deliver_queue(struct sampler *s)
{
	for (size_t i = 0; i < s->nqueue; i++) {
		struct captured_sample *c = &s->queue[i];
		stackwalk_name_natives(s->sw, c->frames, c->n);
		/* a sleeping main thread (asleep_outside_loop) counts only inside a collection; with
		 * --v8-self wherever it sleeps, as V8's SIGPROF wakes it and samples it there */
		bool asleep = !s->opts.idle && c->state != 'R';
		bool in_gc = asleep && frames_in_gc(s->strings, c->frames, c->n);
		if (asleep && !in_gc && !s->sw->v8_self) {
			free(c->frames);
			continue;
		}
		/* --v8-self: a stop V8's profiler would have recorded no sample for */
		if (c->ws.v8_discarded) {
			s->st.v8_discarded++;
			free(c->frames);
			continue;
		}
		/* --v8-self: V8's SIGPROF to a thread that waits for a CPU stays pending (signals do
		 * not queue) and its handler takes one sample when the thread runs again, where it
		 * was preempted: a late stop is one sample, as V8's pending signal is */
		unsigned long w = s->sw->v8_self ? 1 : c->ticks;
		s->st.gc_slept += in_gc ? w : 0;
		s->st.slept += asleep && !in_gc ? w : 0;
		s->st.late += w - 1;
		s->st.samples += w;
		if (c->n == 0)
			s->st.empty += w;
		if (c->ws.end != UNWIND_COMPLETE)
			s->st.truncated += w;
		if (c->ws.js_frames == 0)
			s->st.no_js += w;
		struct sample sm = {.pid = s->pid, .tid = c->tid, .process_name = s->process_name,
				    .container = s->container,
				    .thread_role = role_of(s, tracer_thread(s->tr, c->tid), c),
				    .frames = c->frames, .n = c->n};
		/* a stop that came ticks late stands for each of them (the thread waited for a CPU
		 * in the stack it stopped in): a sample each, spread from the first ask to the stop */
		for (unsigned long k = 0; k < w; k++) {
			sm.time_ns = c->time_ns - (c->time_ns - c->asked_ns) * (w - 1 - k) / w;
			s->sink(s->sink_ctx, &sm);
		}
		free(c->frames);
	}
	s->nqueue = 0;
}

/* Has a thread been asked to stop whose stop has not been handled yet? */
static bool stops_outstanding(const struct sampler *s)
{
	for (size_t i = 0; i < s->tr->n; i++)
		if (s->tr->threads[i].want_sample && s->tr->threads[i].state != TS_GONE)
			return true;
	return false;
}

/* A main thread asleep other than in its event loop's wait (a futex) may be inside a collection,
 * waiting for V8's helper threads: V8's profiler and the GC's own clock count that time as GC. It
 * is sampled, and the sample kept only if it is inside a collection, or with --v8-self wherever it
 * is (deliver_queue). */
static bool asleep_outside_loop(struct sampler *s, struct tthread *t, char state)
{
	if (t->tid != s->pid || state != 'S')
		return false;
	long nr = tthread_sleep_syscall(s->tr, t);
	return nr >= 0 && !syscall_is_loop_wait(nr);
}

/* Ask a thread to stop, the kernel's copy of its stack armed first (its ring given back by a
 * capture of its last stop still waiting to be decoded). */
static void ask_stop(struct sampler *s, struct tthread *t, char state, uint64_t now)
{
	tinfo_for(s, t->tid)->requested_state = state;
	for (size_t i = 0; i < s->captures.used; i++)
		if (s->captures.v[i]->tid == t->tid)
			take_back_lent(s, s->captures.v[i]);
	switch_copy_arm(&s->kcopy, t->tid, now);
	if (!tracer_request_sample(s->tr, t, now))
		switch_copy_disarm(&s->kcopy, t->tid);
}

/* Ask every thread that is due to stop; the stops are handled as they arrive. */
static void tick(struct sampler *s)
{
	s->st.ticks++;
	uint64_t now = now_ns();
	s->tick_ns = now;
	rt_sched_boost(&s->rt);
	for (size_t i = 0; i < s->tr->n; i++) {
		struct tthread *t = &s->tr->threads[i];
		if (t->state != TS_RUNNING)
			continue;
		/* asleep, a thread is sampled only in --idle, or the main thread outside its event
		 * loop's wait (kept inside a collection, or with --v8-self) */
		char state = tthread_state_now(t, s->opts.idle || t->tid == s->pid);
		if (state == 0 || state == 'Z' || state == 'X')
			continue;
		if (!s->opts.idle && state != 'R' && !asleep_outside_loop(s, t, state))
			continue;
		if (t->want_sample) {
			/* its previous stop has not arrived: runnable, it waits for a CPU in the
			 * stack it will stop in, and the stop stands for this tick too; otherwise
			 * (uninterruptible) the tick is missed */
			struct thread_info *ti = tinfo_for(s, t->tid);
			if (state == 'R' && ti->owed < MAX_OWED)
				ti->owed++;
			else
				s->st.missed++;
			continue;
		}
		ask_stop(s, t, state, now);
	}
}

/* The counters now (see struct sampler_mark). */
static void mark(struct sampler *s, struct sampler_mark *m)
{
	*m = (struct sampler_mark){.taken = true, .time_ns = now_ns(), .cpu_ns = own_cpu_ns(),
				   .samples = s->st.samples - s->st.late, .reads = s->live.reads,
				   .stop_reads = s->st.stop_reads, .stops = s->st.pauses.n};
}

void sampler_start(struct sampler *s, uint64_t now, uint64_t end)
{
	s->st.start_ns = now;
	s->next_tick_ns = s->last_scan_ns = now;
	s->end_ns = end;
	s->half_ns = end ? now + (end - now) / 2 : 0;
}

static bool thread_alive(void *ctx, pid_t tid)
{
	const struct tthread *t = tracer_thread(ctx, tid);
	return t && t->state != TS_GONE;
}

/* Every 1/rate s on average: the threads that run are asked to stop. */
static void tick_when_due(struct sampler *s, uint64_t now)
{
	if (now < s->next_tick_ns || (s->end_ns && now >= s->end_ns))
		return;
	if (now - s->last_scan_ns > THREAD_SCAN_NS) {
		tracer_scan_threads(s->tr);
		switch_copy_keep(&s->kcopy, thread_alive, s->tr);
		s->last_scan_ns = now;
	}
	tick(s);
	/* jitter: uniform in [0.5, 1.5) intervals, against aliasing with periodic work */
	uint64_t interval = (uint64_t)(1e9 / (s->opts.rate_hz > 0 ? s->opts.rate_hz : 99));
	s->next_tick_ns += jitter_around(&s->rng, interval);
	now = now_ns();
	if (s->next_tick_ns < now) {
		s->st.behind++;
		s->next_tick_ns = now;
	}
}

uint64_t sampler_step(struct sampler *s, uint64_t now)
{
	tracer_pump(s->tr);
	now = now_ns();
	/* while stops are on their way, stay ready for them; then name what was copied */
	bool stopping = stops_outstanding(s) && now - s->tick_ns < MAX_BOOST_NS;
	if (!stopping && (s->captures.used || s->nqueue)) {
		/* naming frames and the sink run at the normal priority; waiting for the next tick
		 * runs at the real-time one, so that the tick is on time (two sched_setscheduler
		 * calls: only when there is something to name) */
		rt_sched_normal(&s->rt);
		decode_waiting(s);
		deliver_queue(s);
		rt_sched_boost(&s->rt);
		now = now_ns();
	}
	if (!tracer_alive(s->tr))
		return 0;
	if (s->half_ns && !s->st.half.taken && now >= s->half_ns)
		mark(s, &s->st.half);
	tick_when_due(s, now);
	uint64_t boost_end = s->tick_ns + MAX_BOOST_NS;
	if (stops_outstanding(s) && boost_end > now && boost_end < s->next_tick_ns)
		return boost_end;
	return s->next_tick_ns;
}

void sampler_end(struct sampler *s)
{
	rt_sched_normal(&s->rt);
	mark(s, &s->st.end);
	s->st.end_ns = now_ns();
	for (size_t i = 0; i < s->ntinfo; i++) { /* stops that never came (the thread exited) */
		s->st.missed += s->tinfo[i].owed;
		s->tinfo[i].owed = 0;
	}
	if (!tracer_alive(s->tr)) {
		s->st.target_exited = true;
		s->st.exit_status = s->tr->exit_status;
	}
}

/* The latest sample of tid in the queue, NULL when none. */
static struct captured_sample *latest_of(struct sampler *s, pid_t tid)
{
	for (size_t k = s->nqueue; k-- > 0;)
		if (s->queue[k].tid == tid)
			return &s->queue[k];
	return NULL;
}

/* Ask every live thread without a named sample yet for one; how many were asked. */
static size_t request_unsettled(struct sampler *s, uint64_t now)
{
	size_t asked = 0;
	for (size_t i = 0; i < s->tr->n; i++) {
		struct tthread *t = &s->tr->threads[i];
		const struct captured_sample *c = latest_of(s, t->tid);
		if (t->state != TS_RUNNING || t->want_sample || (c && !c->moved))
			continue;
		ask_stop(s, t, tthread_proc_state(t), now);
		asked++;
	}
	return asked;
}

static void wait_for_stops(struct sampler *s, uint64_t deadline)
{
	for (;;) {
		tracer_pump(s->tr);
		bool pending = false;
		for (size_t i = 0; i < s->tr->n; i++)
			pending |= s->tr->threads[i].want_sample && s->tr->threads[i].state != TS_GONE;
		uint64_t now = now_ns();
		if (!pending || now >= deadline)
			return;
		tracer_sleep(s->tr, deadline - now);
	}
}

void sampler_snapshot_all(struct sampler *s, uint64_t timeout_ns, snapshot_fn cb, void *ctx)
{
	tracer_scan_threads(s->tr);
	/* ask every thread at once: each is held only while its own stack is copied */
	uint64_t deadline = now_ns() + timeout_ns;
	for (int round = 0; round < SNAPSHOT_ROUNDS; round++) {
		size_t first = s->nqueue;
		if (!request_unsettled(s, now_ns()))
			break;
		wait_for_stops(s, deadline);
		decode_waiting(s);
		if (round)
			s->st.snapshot_retakes += s->nqueue - first;
		if (now_ns() >= deadline)
			break;
	}
	for (size_t i = 0; i < s->tr->n; i++) {
		struct tthread *t = &s->tr->threads[i];
		if (t->want_sample) {
			t->want_sample = false; /* resumed untouched whenever it does stop */
			s->st.missed++;
		}
		struct captured_sample *c = latest_of(s, t->tid);
		if (!c) {
			if (t->state != TS_GONE)
				cb(ctx, t, t->tid == s->tr->pid ? "main" : "thread",
				   tinfo_for(s, t->tid)->requested_state, NULL, 0, NULL, 0);
			continue;
		}
		uint64_t held = 0;
		for (size_t k = 0; k < s->nqueue; k++)
			held += s->queue[k].tid == t->tid ? s->queue[k].pause_ns : 0;
		stackwalk_name_natives(s->sw, c->frames, c->n);
		bool final;
		cb(ctx, t, sampled_role(s, t, c, &final), c->state, c->frames, c->n, &c->ws, held);
	}
	drop_queue(s);
}
