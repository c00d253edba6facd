/* cpu_share.h — does a process's count of samples agree with the CPU time the kernel accounted
 * to it? At a rate of R Hz a thread that runs for T seconds is due about R × T samples (more where
 * the sampler also counts its waits for a CPU); a process whose samples fall far below that was
 * under-sampled (a sampler that fell behind, lost records, a fault of the sampler) and its share
 * of the profile is wrong. The summary, and each --period, name such a process in a warning
 * rather than let it pass silently. */
#ifndef V8WALK_CPU_SHARE_H
#define V8WALK_CPU_SHARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../util/strbuf.h"

/* A process's CPU time and samples at one moment (the start of a run or of a period). */
struct cpu_mark {
	bool taken;
	uint64_t cpu_ns;
	unsigned long samples;
};

/* Take the mark now (not taken when the process's stat file cannot be read). */
void cpu_mark_take(struct cpu_mark *m, pid_t pid, unsigned long samples);

/* Pure: `samples` for `cpu_s` seconds of CPU at `rate_hz` are far below what is due (set in
 * *due): under 60 % of it, and more than four standard deviations of a count of that size
 * under it, so that a process that ran in short bursts (whose samples scatter around what is due)
 * is not named for its noise. */
bool cpu_share_far_below(unsigned long samples, double cpu_s, double rate_hz, double *due);

/* Compare two marks of one process and, when its samples between them are far below its CPU
 * time, print one warning line naming it (`when`: "over the run", "in period 3") and, with a
 * note, add a short form there ("under-sampled: process 42 13 of ~300 samples due"). Returns true
 * when it warned; false also when either mark could not be taken (the process was gone). */
bool cpu_share_warn(FILE *out, const struct cpu_mark *from, const struct cpu_mark *to, pid_t pid,
		    const char *name, double rate_hz, const char *when, struct strbuf *note);

#endif
