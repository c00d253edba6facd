/* perf_why.h — why the kernel refused a perf event, said for the user: perf_event_paranoid and the
 * capability it takes, a kernel without software events, or the error itself. */
#ifndef V8WALK_PERF_WHY_H
#define V8WALK_PERF_WHY_H

#include <stddef.h>

/* The reason for errno err (positive) into buf; `what` names the call for an error without a
 * known cause. */
void perf_why(char *buf, size_t len, int err, const char *what);

#endif
