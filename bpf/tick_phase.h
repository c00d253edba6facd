/* tick_phase.h — random intervals for the eBPF sampler's per-CPU timers.
 *
 * A cpu-clock perf event ticks on a fixed lattice: start + k × period. A target whose work
 * repeats with that period is then seen at the same point of its cycle at every tick — and the
 * kernel makes such targets: a timed sleep's wake-up falls due within its timer slack (50 µs),
 * and a tick that expires in that window wakes it too, so a loop of work and a timed sleep whose
 * cycle is a little shorter than the period (5 ms of work and a 5 ms sleep under a 99 Hz clock)
 * is pulled onto the tick and stays there: its samples are all of one phase of its cycle, or none.
 *
 * PERF_EVENT_IOC_PERIOD restarts an event's timer with a new period from the moment it is issued.
 * Re-armed after every `every` ticks with a period drawn around the mean, the ticks' intervals are
 * uniform in [mean / 2, 3 × mean / 2), as ptrace's ticks are (util/jitter.h): no phase lasts. The
 * time between the last tick and the re-arm is taken off the new period (shared by the segment's
 * `every` intervals), so that the mean interval stays the mean — what a record of a wait is
 * weighed in. Pure arithmetic on times: the caller issues the ioctl and reads the clock. */
#ifndef V8WALK_TICK_PHASE_H
#define V8WALK_TICK_PHASE_H

#include <stdint.h>

#include "../util/jitter.h"

struct tick_phase {
	uint64_t base;   /* when the timer was last (re)started: it ticks at base + k × period */
	uint64_t period; /* its period now (ns) */
	uint64_t mean;   /* the mean interval wanted (ns) */
	unsigned every;  /* ticks between re-arms (1: every tick) */
};

/* How long after a tick it is taken for past: a timer interrupt is that late at most, as a rule
 * (re-arming before the tick has fired would drop it). */
enum { TICK_PHASE_MARGIN_NS = 200 * 1000 };

/* The timer as opened at `now` with period `mean`. */
void tick_phase_start(struct tick_phase *t, uint64_t now, uint64_t mean, unsigned every);

/* When t is next to be re-armed: just after its `every`-th tick since the last re-arm (UINT64_MAX
 * once stopped). Re-arming at or after it always gives a period. */
uint64_t tick_phase_due(const struct tick_phase *t);

/* The period to re-arm t with at `now` (0: none: no tick since the last re-arm), t updated as if
 * re-armed at `now`. */
uint64_t tick_phase_rearm(struct tick_phase *t, uint64_t now, struct jitter *rng);

/* No more re-arms for t (the kernel refused one: its timer keeps the period it has). */
void tick_phase_stop(struct tick_phase *t);

/* Re-arms between `every` ticks to keep `cpus` timers at `rate_hz` within about `budget` ioctls a
 * second (at least 1). */
unsigned tick_phase_every(int cpus, double rate_hz, double budget);

#endif
