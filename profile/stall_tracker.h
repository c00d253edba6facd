/* stall_tracker.h — the stalls of event loops (--stalls): the samples of each process's current
 * stall gathered as they come (every one of them is a sample of its main thread taken while a
 * loop iteration had run past the threshold), then, when the sampler reports the iteration's end,
 * one report: when it began and how long it ran, what its samples spent the time on (JS, GC, a
 * synchronous native call, a builtin: walker/stall_class.h), the innermost JS functions by their
 * samples and the JS frames of the most frequent, and the stall's own profile (its stacks, for
 * export). */
#ifndef V8WALK_STALL_TRACKER_H
#define V8WALK_STALL_TRACKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "../walker/stall_class.h"
#include "profile.h"
#include "sample.h"

enum { STALL_TOP_MAX = 5, STALL_CHAIN_MAX = 3 };

/* An innermost JS function of a stall's samples, with their count. */
struct stall_fn_count {
	struct frame frame;   /* one of its frames (its name, file, definition) */
	unsigned long samples;
};

struct stall_report {
	pid_t pid;
	uint32_t process_name;    /* interned */
	uint32_t container;       /* as struct sample's: 0, or 1 + interned short container id */
	uint64_t start_ns;        /* CLOCK_MONOTONIC: when the iteration began (or sampling did) */
	uint64_t duration_ns;     /* how long it ran (or had run when sampling ended) */
	bool began_before;        /* it ran already when sampling began: at least this long */
	bool unfinished;          /* it still ran when sampling ended */
	unsigned long samples;
	unsigned long classes[STALL_CLASSES];
	uint32_t class_frame[STALL_CLASSES]; /* native, builtin: the most frequent naming frame's
					      * name (interned; 0: none) */
	struct stall_fn_count top[STALL_TOP_MAX]; /* most samples first */
	int ntop;
	struct frame chain[STALL_CHAIN_MAX]; /* the JS frames, innermost first, of a sample of the
					      * most frequent innermost function */
	int nchain;
	const struct profile *prof; /* the stall's samples */
};

typedef void (*stall_report_fn)(void *ctx, const struct stall_report *r);

struct open_stall;

struct stall_tracker {
	struct intern *strings;
	enum line_mode lines;
	stall_report_fn report;
	void *ctx;
	struct open_stall **open; /* one per process with a stall under way */
	size_t nopen, capopen;
	/* what was reported */
	unsigned long stalls, samples;
	uint64_t longest_ns, total_ns;
};

void stall_tracker_init(struct stall_tracker *t, struct intern *strings, enum line_mode lines,
			stall_report_fn report, void *ctx);
void stall_tracker_free(struct stall_tracker *t);
/* A sample of a stall that began at `start_ns` (a sample's own field stall_start). */
void stall_tracker_sample(struct stall_tracker *t, const struct sample *s, uint64_t start_ns);
/* Process pid's main thread was outside its loop's wait when sampling began, at since_ns: a stall
 * that began then began earlier. */
void stall_tracker_began_before(struct stall_tracker *t, pid_t pid, uint64_t since_ns);
/* The iteration of process pid that began at start_ns ran for duration_ns: its report. */
void stall_tracker_end(struct stall_tracker *t, pid_t pid, uint32_t process_name, uint64_t start_ns,
		       uint64_t duration_ns);
/* Sampling ended at now_ns: the stalls still under way are reported as unfinished. */
void stall_tracker_finish(struct stall_tracker *t, uint64_t now_ns);

#endif
