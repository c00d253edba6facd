/* live_hooks.c — periodic output and `top` behind one loop callback. */
#include "live_hooks.h"

/* The header figures of `top`, from the backend's statistics. */
static void top_status(void *ctx, struct top_status *out)
{
	const struct sampler_backend *b = ctx;
	struct run_stats st;
	b->ops->stats(b->ctx, &st);
	*out = (struct top_status){.sampler = st.sampler, .threads = st.threads,
				   .samples = st.samples, .errors = st.truncated + st.malformed,
				   .missed = st.missed, .max_lag_ms = (double)st.max_lag_ns / 1e6};
}

void live_hooks_open_top(struct live_hooks *lh, const struct sampler_backend *b,
			 const char *title, const char *runtime, uint64_t start_ns)
{
	lh->backend = *b;
	top_view_open(&lh->tv, lh->po.o, lh->po.prof, lh->po.sig, top_status, &lh->backend, title,
		      runtime, start_ns);
	lh->top = true;
}

bool live_hooks_due(struct live_hooks *lh, uint64_t now)
{
	periodic_output_due(&lh->po, now);
	return lh->top && top_view_due(&lh->tv, now);
}

uint64_t live_hooks_interval_ns(const struct options *o)
{
	return o->top ? TOP_KEYS_NS : PERIODIC_CHECK_NS;
}

int live_hooks_finish(struct live_hooks *lh, uint64_t end_ns)
{
	if (lh->top)
		top_view_close(&lh->tv);
	lh->top = false;
	if (lh->po.o->top && !lh->po.o->output)
		return lh->po.rc;
	return periodic_output_finish(&lh->po, end_ns);
}
