/* rt_sched.h — v8walk's own scheduling while a target thread may be stopped. A thread we
 * interrupted stays stopped until v8walk runs: on a saturated machine an ordinary process can
 * wait a whole scheduler slice (milliseconds) before it handles the stop. When v8walk has the
 * privilege (root or CAP_SYS_NICE), it switches itself to SCHED_FIFO at the lowest real-time
 * priority from the moment it asks threads to stop until every stop was handled, and back to
 * its normal policy for everything else (naming frames, writing output), so it never holds a CPU
 * at real-time priority for more than the copies. SCHED_RESET_ON_FORK keeps children (launch
 * mode) out of it. Without the privilege it stays as it is and says so once. */
#ifndef V8WALK_RT_SCHED_H
#define V8WALK_RT_SCHED_H

#include <stdbool.h>

struct rt_sched {
	bool allowed;   /* the switch works here */
	bool boosted;   /* currently SCHED_FIFO */
	int normal_policy;
	int fifo_priority; /* the lowest SCHED_FIFO priority, asked once */
	unsigned long switches;
};

/* Find out whether the switch works (and leave the policy as it was). */
void rt_sched_init(struct rt_sched *r, bool want);
void rt_sched_boost(struct rt_sched *r);
void rt_sched_normal(struct rt_sched *r);

#endif
