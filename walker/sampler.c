/* sampler.c — the live sampling loop over ptrace. */
#include "sampler.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/xalloc.h"

enum {
	STACK_RED_ZONE = 128,
	THREAD_SCAN_NS = 100 * 1000 * 1000,
	MAPS_REFRESH_NS = 50 * 1000 * 1000,
	SNAPSHOT_BUDGET = 8 << 20,
};

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
	memsnap_init(&s->snap, &s->live.base, SNAPSHOT_BUDGET);
	s->rng = now_ns() | 1;
	char fn[64], comm[32] = "node";
	snprintf(fn, sizeof(fn), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(fn, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(s->process_comm, sizeof(s->process_comm), "%s", comm);
	thread_labels_init(&s->labels, strings, pid, comm);
	maps_refresh_init(&s->maps_fresh, MAPS_REFRESH_NS);
	char label[64];
	snprintf(label, sizeof(label), "%s (%d)", comm, (int)pid);
	s->process_label = intern_str(strings, label);
}

void sampler_free(struct sampler *s)
{
	memsnap_free(&s->snap);
	memsrc_live_close(&s->live);
	free(s->st.pause_ns);
	thread_labels_free(&s->labels);
}

static double rand01(struct sampler *s)
{
	uint64_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return (double)(x >> 11) / (double)(1ULL << 53);
}

static uint32_t label_of(struct sampler *s, struct tthread *t)
{
	return thread_label(&s->labels, t->tid, t->comm, s->frames, s->nframes,
			    s->wst.end == UNWIND_COMPLETE);
}

bool sampler_capture(struct sampler *s, struct tthread *t)
{
	struct user_regs_struct ur;
	s->have_sample = false;
	if (ptrace(PTRACE_GETREGS, t->tid, NULL, &ur) != 0)
		return false;
	struct regset regs;
	regset_from_user_regs(&regs, (const uint64_t *)&ur);
	struct stack_bounds b;
	uint64_t sp = regs.r[DW_RSP];
	if (!stack_bounds_at(&s->maps_fresh, s->as, sp, &b)) {
		b.lo = sp - STACK_RED_ZONE;
		b.hi = sp + s->opts.stack_chunk;
	}
	memsnap_reset(&s->snap);
	uint64_t from = sp - STACK_RED_ZONE < b.lo ? b.lo : sp - STACK_RED_ZONE;
	uint64_t to = from + s->opts.stack_chunk;
	if (to > b.hi)
		to = b.hi;
	if (to > from)
		memsnap_add(&s->snap, from, (size_t)(to - from));
	s->nframes = stackwalk_capture(s->sw, &regs, &s->snap.base, &b, s->frames,
				       STACKWALK_MAX_FRAMES, &s->wst);
	/* code outside the known mappings (new libraries, grown JIT space): look again */
	if (maps_refresh_after_walk(&s->maps_fresh, s->as, s->sw->raw, s->wst.raw_frames))
		s->nframes = stackwalk_capture(s->sw, &regs, &s->snap.base, &b, s->frames,
					       STACKWALK_MAX_FRAMES, &s->wst);
	s->have_sample = true;
	return true;
}

void sampler_on_stop(void *ctx, struct tthread *t)
{
	struct sampler *s = ctx;
	uint64_t t0 = now_ns();
	if (t0 - t->interrupt_ns > s->st.max_lag_ns)
		s->st.max_lag_ns = t0 - t->interrupt_ns;
	sampler_capture(s, t);
	/* the tracer resumes the thread right after we return */
	uint64_t held = now_ns() - t0;
	XGROW(s->st.pause_ns, s->st.cappause, s->st.npause + 1);
	s->st.pause_ns[s->st.npause++] = held;
}

static void deliver(struct sampler *s, struct tthread *t)
{
	if (!s->have_sample)
		return;
	s->have_sample = false;
	stackwalk_name_natives(s->sw, s->frames, s->nframes);
	s->st.samples++;
	if (s->nframes == 0)
		s->st.empty++;
	if (s->wst.end != UNWIND_COMPLETE)
		s->st.truncated++;
	if (s->wst.js_frames == 0)
		s->st.no_js++;
	s->sink(s->sink_ctx, s->process_label, label_of(s, t), s->frames, s->nframes);
}

static bool stop_requested(struct sampler *s)
{
	if (s->st.stopped_by_signal)
		return true;
	if (s->opts.stop_fd < 0)
		return false;
	struct pollfd p = {.fd = s->opts.stop_fd, .events = POLLIN};
	if (poll(&p, 1, 0) <= 0)
		return false;
	/* should_stop may consume the event: remember the answer */
	s->st.stopped_by_signal = s->opts.should_stop ? s->opts.should_stop(s->opts.stop_ctx) : true;
	return s->st.stopped_by_signal;
}

/* Sleep until `until` (monotonic ns) while keeping the target's events flowing. */
static void wait_until(struct sampler *s, uint64_t until)
{
	for (;;) {
		tracer_pump(s->tr);
		uint64_t now = now_ns();
		if (now >= until || stop_requested(s) || !tracer_alive(s->tr))
			return;
		struct pollfd p[2] = {{.fd = s->tr->sigchld_fd, .events = POLLIN},
				      {.fd = s->opts.stop_fd, .events = POLLIN}};
		struct timespec ts = {(time_t)((until - now) / 1000000000ULL),
				      (long)((until - now) % 1000000000ULL)};
		if (ppoll(p, s->opts.stop_fd >= 0 ? 2 : 1, &ts, NULL) > 0 && (p[0].revents & POLLIN)) {
			char buf[1024];
			while (read(s->tr->sigchld_fd, buf, sizeof(buf)) > 0)
				;
		}
	}
}

static void tick(struct sampler *s, uint64_t now, uint64_t interval)
{
	s->st.ticks++;
	for (size_t i = 0; i < s->tr->n; i++) {
		struct tthread *t = &s->tr->threads[i];
		if (t->state != TS_RUNNING)
			continue;
		char state = tthread_proc_state(t);
		if (state == 0 || state == 'Z' || state == 'X')
			continue;
		if (!s->opts.idle && state != 'R')
			continue;
		if (!tracer_request_sample(s->tr, t, now_ns()))
			continue;
		/* a thread that does not stop within one interval is counted as missed (it will be
		 * sampled when it does stop, and resumed in any case) */
		size_t idx = i;
		tracer_wait_thread(s->tr, t, interval);
		t = &s->tr->threads[idx];
		if (t->want_sample) {
			t->want_sample = false; /* resumed untouched whenever it does stop */
			s->st.missed++;
			continue;
		}
		deliver(s, t);
	}
	(void)now;
}

void sampler_run(struct sampler *s)
{
	uint64_t interval = (uint64_t)(1e9 / (s->opts.rate_hz > 0 ? s->opts.rate_hz : 99));
	uint64_t start = now_ns();
	uint64_t deadline = s->opts.duration_s > 0 ? start + (uint64_t)(s->opts.duration_s * 1e9) : 0;
	uint64_t next = start;
	uint64_t last_scan = start;
	s->st.start_ns = start;
	for (;;) {
		wait_until(s, deadline && deadline < next ? deadline : next);
		uint64_t now = now_ns();
		if (stop_requested(s))
			break;
		if (!tracer_alive(s->tr)) {
			s->st.target_exited = true;
			s->st.exit_status = s->tr->exit_status;
			break;
		}
		if (deadline && now >= deadline)
			break;
		if (now < next)
			continue;
		if (now - last_scan > THREAD_SCAN_NS) {
			tracer_scan_threads(s->tr);
			last_scan = now;
		}
		tick(s, now, interval);
		/* jitter: uniform in [0.5, 1.5) intervals, against aliasing with periodic work */
		next += (uint64_t)((double)interval * (0.5 + rand01(s)));
		now = now_ns();
		if (next < now) {
			s->st.behind++;
			next = now;
		}
	}
	s->st.end_ns = now_ns();
	if (!s->st.target_exited && !tracer_alive(s->tr)) {
		s->st.target_exited = true;
		s->st.exit_status = s->tr->exit_status;
	}
}

void sampler_snapshot_all(struct sampler *s, uint64_t timeout_ns, snapshot_fn cb, void *ctx)
{
	tracer_scan_threads(s->tr);
	for (size_t i = 0; i < s->tr->n; i++) {
		struct tthread *t = &s->tr->threads[i];
		if (t->state != TS_RUNNING)
			continue;
		char state = tthread_proc_state(t);
		size_t npause = s->st.npause;
		s->have_sample = false;
		if (tracer_request_sample(s->tr, t, now_ns()))
			tracer_wait_thread(s->tr, t, timeout_ns);
		t = &s->tr->threads[i];
		if (t->want_sample) {
			t->want_sample = false;
			s->st.missed++;
		}
		uint64_t pause = s->st.npause > npause ? s->st.pause_ns[s->st.npause - 1] : 0;
		if (!s->have_sample) {
			cb(ctx, t, t->tid == s->tr->pid ? "main" : "thread", state, NULL, 0, NULL, 0);
			continue;
		}
		s->have_sample = false;
		stackwalk_name_natives(s->sw, s->frames, s->nframes);
		bool final;
		const char *role = thread_labels_role(&s->labels, t->tid, t->comm, s->frames,
						      s->nframes, s->wst.end == UNWIND_COMPLETE, &final);
		cb(ctx, t, role, state, s->frames, s->nframes, &s->wst, pause);
	}
}
