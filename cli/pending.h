/* pending.h — `--dump --pending` and `--core FILE --pending`: what a process is waiting on. Every
 * suspended async function and async generator of its heap (walker/pending_scan.h), named with
 * the await it is suspended at, chained to the async functions awaiting it; the innermost of
 * each chain (the one nothing else awaits through) stands for its chain, and identical chains
 * are counted once: "30 requests wait in loadUser ← handle". Text, or JSON with --json. */
#ifndef V8WALK_PENDING_H
#define V8WALK_PENDING_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../walker/pending_scan.h"
#include "../walker/stackwalk.h"

struct pending_group {
	size_t count;
	struct frame *frames; /* outermost first */
	int nframes;
};

struct pending_report {
	pid_t pid;
	char runtime[128];
	char source[512];
	bool live;
	const struct intern *strings;
	struct pending_result r;
	size_t innermost;     /* functions nothing else awaits through */
	struct pending_group *g;
	size_t ng, capg;
};

/* Scan the heap h reads (`live`: read objects again there; NULL for a core) and group what it
 * holds; names come from sw. False with *why when the heap could not be found. */
bool pending_collect(struct pending_report *pr, struct stackwalk *sw, const struct v8_heap *h,
		     struct memsrc *live, const char **why);
void pending_report_free(struct pending_report *pr);
int pending_write_text(const struct pending_report *pr, FILE *out);
int pending_write_json(const struct pending_report *pr, FILE *out);
/* pending_collect, then the report to -o (or stdout) and the summary (unless -q); the exit code. */
struct options;
int pending_run(struct pending_report *pr, struct stackwalk *sw, const struct v8_heap *h,
		struct memsrc *live, const struct options *o);
/* One line on stderr: what was read, how long it took (per GiB), what was left out. */
void pending_summary(const struct pending_report *pr, FILE *out);

#endif
