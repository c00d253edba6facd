/* ch_report.h — a profile read back from ClickHouse: the samples of a filter are summed per
 * stack by ClickHouse (GROUP BY stack_hash), the frames of just those stacks are fetched, and the
 * stacks are added to an aggregation (profile.h) under one root ("ROOT (0)" / "all (0)"), ready
 * for any of v8walk's writers. Answers are decoded as hostile input (rowbinary.h) with bounds on
 * stacks, frames and samples. */
#ifndef V8WALK_CH_REPORT_H
#define V8WALK_CH_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../profile/profile.h"
#include "ch_http.h"

/* The answers' bounds. Samples are not bounded: a stack is added once with its count, into an
 * untimed profile (profile.h), so memory goes with the distinct stacks. */
enum { REPORT_STACKS_MAX = 4 << 20, REPORT_FRAMES_MAX = 4096, REPORT_FRAME_TEXT_MAX = 64 << 10 };

struct stack_count {
	uint64_t hash, count;
};

struct report_figures {
	size_t stacks;           /* distinct stacks the filter matched */
	size_t missing_frames;   /* of those, stacks whose frames the stacks table lacks */
	uint64_t samples;
	double query_ms;         /* both queries, as the client saw them */
};

/* Pure: decode the (stack_hash UInt64, sum UInt64) rows; NULL-free arrays in *out (caller frees). */
bool ch_decode_counts(const char *data, size_t len, struct stack_count **out, size_t *n,
		      struct strbuf *why);

/* Pure: add the stacks of a (stack_hash UInt64, frames Array(String)) answer to p, each with its
 * count from counts[] (under a root named root_label); a counted stack the answer lacks is added
 * as one "[v8walk: stack HASH not stored]" frame (*missing counts them). False with one line in
 * why when the answer is malformed or names a stack not asked for. */
bool ch_report_add_stacks(struct profile *p, const struct stack_count *counts, size_t ncounts,
			  const char *data, size_t len, const char *root_label, size_t *missing,
			  struct strbuf *why);

/* Where a report's samples come from: the samples table (a profile), or the stalls table (the
 * samples of the event loops' stalls, --stalls: each stall's stacks and counts). */
enum report_source { REPORT_SAMPLES, REPORT_STALLS };

/* The samples of `where_sql` (conditions after "WHERE 1", from ch_sql.h) in [since, until) Unix
 * seconds, into p (already initialised, and best made untimed: profile_untimed) under a root
 * named root_label. */
bool ch_report_fetch(struct ch_conn *c, enum report_source src, const char *where_sql,
		     int64_t since, int64_t until, const char *root_label, struct profile *p,
		     struct report_figures *fig, struct strbuf *why);

/* One stall as report lists it. */
struct stall_row {
	int64_t start_ms;          /* Unix ms */
	double duration_ms;
	uint32_t pid, samples, classes[4]; /* js, gc, native, builtin */
	char host[64], service[128], frames[512]; /* frames: "f (a.js:1) < g (a.js:9)" */
};

/* Pure: decode the answer of the slowest-stalls query (start_ms, duration_ms, pid, samples, js,
 * gc, native, builtin, host, service, frames) into at most max rows. */
bool ch_decode_stall_rows(const char *data, size_t len, struct stall_row *out, size_t max,
			  size_t *n, struct strbuf *why);
/* The `max` longest stalls of `where_sql` in [since, until), longest first, and how many stalls
 * there were in all. */
bool ch_report_slowest_stalls(struct ch_conn *c, const char *where_sql, int64_t since, int64_t until,
			      struct stall_row *out, size_t max, size_t *n, uint64_t *total,
			      struct strbuf *why);

#endif
