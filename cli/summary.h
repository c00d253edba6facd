/* summary.h — the end-of-run lines on stderr: samples, errors, achieved rate, pauses, own CPU. */
#ifndef V8WALK_SUMMARY_H
#define V8WALK_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "../symtab/perfmap.h"
#include "../util/intern.h"
#include "../v8/scripts.h"
#include "../ptrace/sampler.h"
#include "../sampling/backend.h"

/* The line both samplers end with (benchmarks parse it): samples, achieved rate, errors, the
 * pauses of a sampler that stops threads, lag, v8walk's CPU over the run. */
void print_run_summary(FILE *out, const struct run_stats *st);
/* V8WALK_STATS=1, before that line: how the ptrace sampler's caches behaved, where a stop's time
 * went (for tuning the cost of a sample). */
void print_ptrace_cache_stats(FILE *out, const struct sampler *s);
/* The steady state (the second half of a --duration), after that line, as both samplers say it
 * (benchmarks parse it): reads of the target per sample, per stop while stopped (stopped_reads < 0:
 * a sampler that never stops the target), v8walk's own CPU in % and in µs per sample (the figure
 * to compare between runs whose targets ran different numbers of threads). */
void print_steady_state(FILE *out, double reads_per_sample, double stopped_reads, double cpu_percent,
			double cpu_us_per_sample);
/* What only the ptrace sampler says after that line: the steady state, samples a GC invalidated,
 * a schedule it could not keep, the target's exit. */
void print_ptrace_notes(FILE *out, const struct sampler *s);
/* "v8walk: WHO exited (status N)" / "was killed by signal N" / "exited" (status unknown). */
void print_exit_status(FILE *out, const char *who, bool known, int status);
/* One line for each bound target data reached (a perf map cut short, the scripts' line tables or
 * the name table full), so that a result incomplete because of it says so. Any may be NULL. */
void print_limits(FILE *out, pid_t pid, const struct perfmap *pm, const struct script_cache *scripts,
		  const struct intern *strings);
/* v8walk's own CPU time so far (user + system), in seconds. */
double own_cpu_seconds(void);

#endif
