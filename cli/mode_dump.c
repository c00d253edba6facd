/* mode_dump.c — `--pid N --dump`: stop each thread in turn only as long as it takes to copy and
 * walk its stack, then print every thread's mixed stack (text or JSON). */
#include <stdio.h>

#include "../util/text_escape.h"
#include <string.h>

#include "dump.h"
#include "modes.h"
#include "pending.h"
#include "session.h"

enum { THREAD_STOP_TIMEOUT_NS = 500 * 1000 * 1000 };

static void no_sink(void *ctx, const struct sample *s)
{
	(void)ctx, (void)s;
}

static void collect(void *ctx, struct tthread *t, const char *role, char state,
		    const struct frame *frames, int n, const struct walk_stats *ws, uint64_t pause_ns)
{
	struct process_dump *d = ctx;
	struct thread_dump *td = process_dump_add(d, t->tid, frames, n);
	snprintf(td->name, sizeof(td->name), "%s", role);
	td->state = state;
	td->pause_ns = pause_ns;
	td->truncated = !ws || ws->end != UNWIND_COMPLETE;
	d->total_pause_ns += pause_ns;
}

/* --dump --pending: the heap is read while the process runs (nothing is stopped). */
static int dump_pending(struct live_session *ss, const struct options *o)
{
	struct pending_report pr;
	memset(&pr, 0, sizeof(pr));
	pr.pid = o->pid;
	struct strbuf desc;
	sb_init(&desc);
	v8_runtime_describe(&ss->tg.rt, &desc);
	snprintf(pr.runtime, sizeof(pr.runtime), "%s", desc.s);
	sb_free(&desc);
	snprintf(pr.source, sizeof(pr.source), "live process");
	const struct v8_heap h = {.mem = &ss->s.live.base, .L = &ss->tg.rt.L, .types = &ss->sw.map_types};
	int rc = pending_run(&pr, &ss->sw, &h, &ss->s.live.base, o);
	pending_report_free(&pr);
	return rc;
}

int mode_dump(const struct options *o)
{
	struct sampler_opts so = {.rate_hz = 1, .stack_chunk = (size_t)o->stack_kb << 10,
				  .stop_limit_ns = (uint64_t)o->stop_limit_us * 1000,
				  .stack_copy = o->stack_copy};
	struct live_session ss;
	if (!session_open(&ss, o, &so, no_sink, NULL))
		return session_failed(&ss);
	if (o->pending) {
		int rc = dump_pending(&ss, o);
		session_close(&ss);
		return rc;
	}
	struct process_dump d;
	process_dump_init(&d, &ss.strings);
	d.pid = o->pid;
	snprintf(d.comm, sizeof(d.comm), "%s", ss.tg.comm);
	struct strbuf desc;
	sb_init(&desc);
	v8_runtime_describe(&ss.tg.rt, &desc);
	snprintf(d.runtime, sizeof(d.runtime), "%s", desc.s);
	snprintf(d.source, sizeof(d.source), "live process");
	sb_free(&desc);
	int rc = EXIT_ERROR;
	if (session_attach(&ss)) {
		sampler_snapshot_all(&ss.s, THREAD_STOP_TIMEOUT_NS, collect, &d);
		session_detach(&ss);
		process_dump_sort(&d);
		FILE *out = open_output(o);
		if (out)
			rc = close_output(o, out, o->json ? write_dump_json(&d, out) : write_dump_text(&d, out));
		if (!o->quiet)
			fprintf_text(stderr,
				"v8walk: %zu threads; each paused only while its stack was copied and "
				"walked: %.0f us in all\n",
				d.nthreads, (double)d.total_pause_ns / 1e3);
		if (!o->quiet && ss.s.st.snapshot_retakes)
			fprintf_text(stderr,
				"v8walk: %lu stops taken again: a GC moved what the first copy named "
				"before it was read\n", ss.s.st.snapshot_retakes);
		if (!o->quiet && ss.sw.sourcemaps)
			sm_store_summary(ss.sw.sourcemaps, stderr);
	} else {
		rc = session_failed(&ss);
	}
	process_dump_free(&d);
	session_close(&ss);
	return rc;
}
