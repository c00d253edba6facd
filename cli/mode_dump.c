/* mode_dump.c — `--pid N --dump`: stop each thread in turn only as long as it takes to copy and
 * walk its stack, then print every thread's mixed stack (text or JSON). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../util/intern.h"
#include "../walker/sampler.h"
#include "../walker/stackwalk.h"
#include "../walker/tracer.h"
#include "diagnose.h"
#include "dump.h"
#include "modes.h"
#include "target.h"

enum { THREAD_STOP_TIMEOUT_NS = 500 * 1000 * 1000 };

static void no_sink(void *ctx, uint32_t a, uint32_t b, const struct frame *f, int n)
{
	(void)ctx, (void)a, (void)b, (void)f, (void)n;
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

int mode_dump(const struct options *o)
{
	struct strbuf msg;
	sb_init(&msg);
	struct live_target tg;
	if (!live_target_open(&tg, o->pid, o, &msg)) {
		int rc = fail_msg(msg.s);
		sb_free(&msg);
		return rc;
	}
	struct tracer tr;
	if (tracer_init_signals(&tr) != 0)
		return fail_msg("cannot set up signal handling");
	struct intern strings;
	intern_init(&strings);
	struct stackwalk sw;
	stackwalk_init(&sw, &tg.as, &tg.rt, &strings, o->full_native_names);
	struct sampler_opts so = {.rate_hz = 1, .stack_chunk = (size_t)o->stack_kb << 10, .stop_fd = -1};
	struct sampler s;
	sampler_init(&s, o->pid, &so, &tr, &sw, &tg.as, &strings, no_sink, NULL);
	struct process_dump d;
	process_dump_init(&d, &strings);
	d.pid = o->pid;
	snprintf(d.comm, sizeof(d.comm), "%s", tg.comm);
	struct strbuf desc;
	sb_init(&desc);
	v8_runtime_describe(&tg.rt, &desc);
	snprintf(d.runtime, sizeof(d.runtime), "%s", desc.s);
	snprintf(d.source, sizeof(d.source), "live process");
	sb_free(&desc);
	int rc = 1;
	int err = tracer_attach(&tr, o->pid, sampler_on_stop, &s);
	if (err) {
		diagnose_access(o->pid, -err, &msg);
		fail_msg(msg.s);
		goto out;
	}
	sampler_snapshot_all(&s, THREAD_STOP_TIMEOUT_NS, collect, &d);
	tracer_detach_all(&tr, 1000 * 1000 * 1000ULL);
	process_dump_sort(&d);
	FILE *out = open_output(o);
	if (out)
		rc = close_output(o, out, o->json ? write_dump_json(&d, out) : write_dump_text(&d, out));
	if (!o->quiet)
		fprintf(stderr, "v8walk: %zu threads; each paused only while its stack was copied and "
				"walked: %.0f us in all\n",
			d.nthreads, (double)d.total_pause_ns / 1e3);
out:
	process_dump_free(&d);
	sampler_free(&s);
	tracer_free(&tr);
	stackwalk_free(&sw);
	intern_free(&strings);
	live_target_close(&tg);
	sb_free(&msg);
	return rc;
}
