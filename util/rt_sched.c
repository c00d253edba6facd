/* rt_sched.c — switching v8walk between SCHED_FIFO and its normal policy. */
#include "rt_sched.h"

#include <sched.h>
#include <string.h>

static bool set_fifo(const struct rt_sched *r)
{
	struct sched_param sp = {.sched_priority = r->fifo_priority};
	return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
}

static void set_normal(int policy)
{
	struct sched_param sp = {.sched_priority = 0};
	sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &sp);
}

void rt_sched_init(struct rt_sched *r, bool want)
{
	memset(r, 0, sizeof(*r));
	r->fifo_priority = sched_get_priority_min(SCHED_FIFO);
	int p = sched_getscheduler(0);
	r->normal_policy = p >= 0 ? (p & ~SCHED_RESET_ON_FORK) : SCHED_OTHER;
	if (r->normal_policy == SCHED_FIFO || r->normal_policy == SCHED_RR)
		return; /* already real-time: leave it alone */
	if (want && set_fifo(r)) {
		r->allowed = true;
		set_normal(r->normal_policy);
	}
}

void rt_sched_boost(struct rt_sched *r)
{
	if (r->allowed && !r->boosted && set_fifo(r)) {
		r->boosted = true;
		r->switches++;
	}
}

void rt_sched_normal(struct rt_sched *r)
{
	if (r->boosted) {
		set_normal(r->normal_policy);
		r->boosted = false;
	}
}
