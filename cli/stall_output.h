/* stall_output.h — how --stalls tells of each stall as it ends: one line on stderr (`v8walk:
 * stall 123.4 ms at 14:03:12.345 in process 4242 (node): JS 96%, GC 4%: parse < handle < serve`)
 * and, with --json, one JSON object a line on stdout (when it began, the pid, how long it ran,
 * its samples by what they spent the time on, the innermost JS functions by samples, the JS
 * frames of the most frequent). Times are wall-clock, from the monotonic clock of the samples and
 * the offset between the clocks taken when sampling began. */
#ifndef V8WALK_STALL_OUTPUT_H
#define V8WALK_STALL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../profile/stall_tracker.h"
#include "../util/intern.h"
#include "../util/strbuf.h"

struct stall_output {
	const struct intern *strings;
	FILE *line_out;   /* stderr (NULL: no line) */
	FILE *json_out;   /* stdout with --json (NULL: none) */
	double threshold_ms;
	int64_t wall_minus_mono_ns; /* CLOCK_REALTIME − CLOCK_MONOTONIC when sampling began */
};

void stall_output_init(struct stall_output *so, const struct intern *strings, FILE *line_out,
		       FILE *json_out, double threshold_ms);
/* The human line of one stall (no "v8walk: " prefix, no newline), into out. */
void stall_output_line(const struct stall_output *so, const struct stall_report *r,
		       struct strbuf *out);
/* One JSON object (one line) for one stall. */
void stall_output_json(const struct stall_output *so, const struct stall_report *r, FILE *out);
/* When a stall that began at mono_ns (CLOCK_MONOTONIC) began, in Unix milliseconds. */
int64_t stall_output_unix_ms(const struct stall_output *so, uint64_t mono_ns);
/* Both, as --stalls asks (a stall_report_fn: ctx is the stall_output). */
void stall_output_report(void *ctx, const struct stall_report *r);
/* The summary line of a run's stalls. */
void stall_output_summary(const struct stall_output *so, const struct stall_tracker *t, FILE *out);

#endif
