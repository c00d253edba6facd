/* test_tick_phase.c — the eBPF sampler's per-CPU timers re-armed at random intervals
 * (bpf/tick_phase.c), against a model of the kernel's timer: it ticks at base + k × period and
 * PERF_EVENT_IOC_PERIOD restarts it from the moment of the call. The loop that re-arms it wakes
 * when tick_phase_due says, late by up to a given time. */
#include <criterion/criterion.h>
#include <math.h>

#include "../../bpf/tick_phase.h"

#define MEAN 10101010ULL /* 99 Hz */

struct model {
	uint64_t base, period; /* the kernel's timer */
	uint64_t *ticks;
	size_t n, cap;
};

/* The ticks of the kernel's timer in (from, to]. */
static void run_timer(struct model *m, uint64_t from, uint64_t to)
{
	uint64_t k = from > m->base ? (from - m->base) / m->period + 1 : 1;
	for (uint64_t t = m->base + k * m->period; t <= to && m->n < m->cap; t += m->period)
		if (t > from)
			m->ticks[m->n++] = t;
}

/* Drive the timer for `count` ticks, the loop waking up to `late` ns after each due time. */
static void simulate(struct model *m, unsigned every, uint64_t late, size_t count, uint64_t seed)
{
	struct jitter rng, lateness;
	jitter_seed(&rng, seed);
	jitter_seed(&lateness, seed * 7 + 3);
	struct tick_phase t;
	uint64_t now = 1000000000ULL;
	tick_phase_start(&t, now, MEAN, every);
	*m = (struct model){.base = now, .period = MEAN, .cap = count};
	m->ticks = calloc(count, sizeof(*m->ticks));
	for (size_t turns = 0; m->n < count; turns++) {
		cr_assert_lt(turns, 2 * count, "the loop is woken without a tick to re-arm after");
		uint64_t wake = tick_phase_due(&t) + (uint64_t)(jitter_unit(&lateness) * (double)late);
		run_timer(m, now, wake);
		now = wake;
		uint64_t period = tick_phase_rearm(&t, now, &rng);
		cr_assert_neq(period, 0, "due at %lu, nothing to re-arm at %lu",
			      (unsigned long)tick_phase_due(&t), (unsigned long)now);
		{
			m->base = now;
			m->period = period;
		}
	}
}

static double mean_interval(const struct model *m)
{
	return (double)(m->ticks[m->n - 1] - m->ticks[0]) / (double)(m->n - 1);
}

/* The share of ticks that fall in the first half of a cycle of `cycle` ns. */
static double first_half_share(const struct model *m, uint64_t cycle)
{
	size_t in = 0;
	for (size_t i = 0; i < m->n; i++)
		in += m->ticks[i] % cycle < cycle / 2;
	return (double)in / (double)m->n;
}

Test(tick_phase, every_interval_is_a_fresh_draw_around_the_mean)
{
	struct model m;
	simulate(&m, 1, 500000, 20000, 42);
	cr_assert(fabs(mean_interval(&m) / MEAN - 1) < 0.01, "mean interval %.0f ns", mean_interval(&m));
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 1; i < m.n; i++) {
		uint64_t gap = m.ticks[i] - m.ticks[i - 1];
		lo = gap < lo ? gap : lo;
		hi = gap > hi ? gap : hi;
	}
	/* each interval is its own draw in [mean/2, 3 mean/2): the loop's lateness is taken off */
	cr_assert_geq(lo, MEAN / 2 - 1000, "shortest interval %lu", (unsigned long)lo);
	cr_assert_leq(hi, 3 * MEAN / 2 + 1000, "longest interval %lu", (unsigned long)hi);
	cr_assert_gt(hi - lo, MEAN * 9 / 10, "intervals spread over %lu ns only", (unsigned long)(hi - lo));
	free(m.ticks);
}

Test(tick_phase, the_mean_holds_with_several_ticks_between_re_arms)
{
	for (unsigned every = 2; every <= 8; every *= 2) {
		struct model m;
		simulate(&m, every, 2000000, 100000, every); /* 100000 / every draws: the mean within 0.2 % (1 sd) */
		cr_assert(fabs(mean_interval(&m) / MEAN - 1) < 0.01, "every %u: mean interval %.0f ns",
			  every, mean_interval(&m));
		free(m.ticks);
	}
}

/* A target whose cycle is the period (5 ms of work, a 5 ms sleep: 10.1 ms) is seen in each half
 * of its cycle as often as it spends there; a timer at a fixed period sees one half only. */
Test(tick_phase, no_phase_of_a_cycle_of_the_period_is_favoured)
{
	for (unsigned every = 1; every <= 4; every *= 2) {
		struct model m;
		simulate(&m, every, 300000, 20000, 1000 + every);
		double share = first_half_share(&m, MEAN);
		cr_assert(fabs(share - 0.5) < 0.03, "every %u: %.3f of the ticks in one half", every, share);
		share = first_half_share(&m, MEAN - 40000); /* a cycle a little shorter, as slack makes */
		cr_assert(fabs(share - 0.5) < 0.03, "every %u: %.3f of the ticks in one half", every, share);
		free(m.ticks);
	}
}

Test(tick_phase, nothing_to_re_arm_before_a_tick)
{
	struct jitter rng;
	jitter_seed(&rng, 5);
	struct tick_phase t;
	tick_phase_start(&t, 1000, MEAN, 1);
	cr_assert_eq(tick_phase_rearm(&t, 1000 + MEAN / 2, &rng), 0);
	/* the tick at base + period is taken for fired only past the margin */
	cr_assert_eq(tick_phase_rearm(&t, 1000 + MEAN + TICK_PHASE_MARGIN_NS / 2, &rng), 0);
	cr_assert_eq(tick_phase_due(&t), 1000 + MEAN + TICK_PHASE_MARGIN_NS);
	cr_assert_neq(tick_phase_rearm(&t, tick_phase_due(&t), &rng), 0);
	cr_assert_eq(t.base, 1000 + MEAN + TICK_PHASE_MARGIN_NS);
	tick_phase_stop(&t);
	cr_assert_eq(tick_phase_due(&t), UINT64_MAX);
}

Test(tick_phase, re_arms_a_second_stay_within_the_budget)
{
	cr_assert_eq(tick_phase_every(1, 99, 100), 1);
	cr_assert_eq(tick_phase_every(2, 99, 100), 2);
	cr_assert_eq(tick_phase_every(64, 99, 100), 64);
	cr_assert_eq(tick_phase_every(2, 997, 100), 20);
	cr_assert_eq(tick_phase_every(0, 99, 100), 1);
}
