/* summary.h — the end-of-run line on stderr: samples, errors, achieved rate, pauses, own CPU. */
#ifndef V8WALK_SUMMARY_H
#define V8WALK_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "../symtab/perfmap.h"
#include "../util/intern.h"
#include "../v8/scripts.h"
#include "../ptrace/sampler.h"
#include "../ptrace/tracer.h"

void print_summary(FILE *out, const struct sampler *s, const struct tracer *tr);
/* "v8walk: WHO exited (status N)" / "was killed by signal N" / "exited" (status unknown). */
void print_exit_status(FILE *out, const char *who, bool known, int status);
/* One line for each bound target data reached (a perf map cut short, the scripts' line tables or
 * the name table full), so that a result incomplete because of it says so. Any may be NULL. */
void print_limits(FILE *out, pid_t pid, const struct perfmap *pm, const struct script_cache *scripts,
		  const struct intern *strings);
/* v8walk's own CPU time so far (user + system), in seconds. */
double own_cpu_seconds(void);

#endif
