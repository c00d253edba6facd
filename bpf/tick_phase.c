/* tick_phase.c — the schedule of re-arms that gives the eBPF sampler's per-CPU timers random
 * intervals (tick_phase.h). */
#include "tick_phase.h"


void tick_phase_start(struct tick_phase *t, uint64_t now, uint64_t mean, unsigned every)
{
	*t = (struct tick_phase){.base = now, .period = mean, .mean = mean,
				 .every = every ? every : 1};
}

uint64_t tick_phase_due(const struct tick_phase *t)
{
	if (t->period == 0)
		return UINT64_MAX;
	return t->base + (uint64_t)t->every * t->period + TICK_PHASE_MARGIN_NS;
}

uint64_t tick_phase_rearm(struct tick_phase *t, uint64_t now, struct jitter *rng)
{
	if (t->period == 0 || now < t->base + t->period + TICK_PHASE_MARGIN_NS)
		return 0;
	uint64_t ticks = (now - t->base) / t->period;
	uint64_t last = t->base + ticks * t->period;
	if (now - last < TICK_PHASE_MARGIN_NS) /* the latest tick may not have fired yet */
		last -= t->period;
	uint64_t since = now - last, draw = jitter_around(rng, t->mean);
	/* the segment from the last tick: its first interval is since + period, its others period;
	 * `every` of them should add up to every × draw */
	uint64_t share = since / t->every, floor_ns = t->mean / 8;
	uint64_t period = draw > share + floor_ns ? draw - share : draw;
	t->base = now;
	t->period = period;
	return period;
}

void tick_phase_stop(struct tick_phase *t)
{
	t->period = 0;
}

unsigned tick_phase_every(int cpus, double rate_hz, double budget)
{
	double x = cpus > 0 && budget > 0 ? (double)cpus * rate_hz / budget : 1;
	if (x > 1000)
		return 1000;
	unsigned n = (unsigned)x;
	n += n < x; /* rounded up */
	return n < 1 ? 1 : n;
}
