/* live_hooks.c — periodic output and `top` behind one loop callback. */
#include "live_hooks.h"

bool live_hooks_due(void *ctx, uint64_t now)
{
	struct live_hooks *lh = ctx;
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
