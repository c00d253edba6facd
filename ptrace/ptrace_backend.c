/* ptrace_backend.c — the ptrace sampler's operations for the CLI's loop. */
#include "ptrace_backend.h"

#include <unistd.h>

enum { DETACH_TIMEOUT_NS = 1000 * 1000 * 1000 };

static int wait_fd(void *ctx)
{
	const struct sampler *s = ctx;
	return s->tr->sigchld_fd;
}

static void start(void *ctx, uint64_t now, uint64_t end)
{
	sampler_start(ctx, now, end);
}

static uint64_t step(void *ctx, uint64_t now, bool fd_ready)
{
	struct sampler *s = ctx;
	if (fd_ready) { /* SIGCHLD arrived: the pump collects what it announced */
		char buf[1024];
		while (read(s->tr->sigchld_fd, buf, sizeof(buf)) > 0)
			;
	}
	return sampler_step(s, now);
}

static void end(void *ctx)
{
	sampler_end(ctx);
}

static void stats(void *ctx, struct run_stats *out)
{
	const struct sampler *s = ctx;
	const struct sampler_stats *st = &s->st;
	*out = (struct run_stats){.sampler = "ptrace", .samples = st->samples, .no_js = st->no_js,
				  .truncated = st->truncated, .missed = st->missed + st->cut,
				  .missed_as = "missed", .processes = 1,
				  .threads = s->tr->threads_seen, .max_lag_ns = st->max_lag_ns,
				  .start_ns = st->start_ns, .end_ns = st->end_ns,
				  .pauses = &st->pauses, .main_pauses = &st->main_pauses, .main_stops_ns = st->main_stops_ns, .ticks = st->ticks, .reads = s->live.reads,
				  .stop_reads = st->stop_reads, .gc_slept = st->gc_slept, .slept = st->slept,
				  .v8_discarded = st->v8_discarded,
				  .late = st->late};
	const struct async_stats *as = &s->sw->async.st;
	out->async_sites = as->sites;
	out->async_chains = as->chains;
	out->async_frames = as->frames;
	out->async_moved = as->moved;
	out->async_changed = as->changed;
}

static void close_targets(void *ctx)
{
	struct sampler *s = ctx;
	tracer_detach_all(s->tr, DETACH_TIMEOUT_NS);
}

const struct sampler_backend_ops ptrace_backend_ops = {
	.name = "ptrace",
	.wait_fd = wait_fd,
	.start = start,
	.step = step,
	.end = end,
	.stats = stats,
	.close = close_targets,
};
