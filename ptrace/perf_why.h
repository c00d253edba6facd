/* perf_why.h — why the kernel refused a perf event, said for the user: perf_event_paranoid and the
 * capability it takes, a container's seccomp profile and the flags that lift it, a kernel without
 * software events, or the error itself. */
#ifndef V8WALK_PERF_WHY_H
#define V8WALK_PERF_WHY_H

#include <stddef.h>

#include "../sampling/confinement.h"

/* What decides whether perf events may be opened (gathered from /proc, or made up by tests). */
struct perf_facts {
	int paranoid;            /* kernel.perf_event_paranoid, 99 = unknown */
	struct confinement conf; /* v8walk's container, seccomp filter, capabilities */
};

void perf_facts_gather(struct perf_facts *f);
/* The reason for errno err (positive) into buf; `what` names the call for an error without a
 * known cause. */
void perf_why_explain(char *buf, size_t len, int err, const char *what, const struct perf_facts *f);
/* gather + explain */
void perf_why(char *buf, size_t len, int err, const char *what);

#endif
