/* bpf_backend.h — the eBPF sampler behind the interface of both samplers (sampling/backend.h):
 * the kernel copies each sample's registers and stack memory (bpf_sampler.h) and nothing is ever
 * stopped; each record is walked with the same walker and decoder as ptrace mode (sample_walk.h),
 * its kernel frames named from kallsyms, and handed to the sink. Serves one or several pids,
 * every node process (rescanned while sampling) and a launched program (its execve is reported:
 * it is opened then); notices exits, also those whose record was lost. */
#ifndef V8WALK_BPF_BACKEND_H
#define V8WALK_BPF_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../profile/sample.h"
#include "../profile/stall_tracker.h"
#include "../sampling/backend.h"
#include "../sampling/node_scan.h"
#include "../symtab/kallsyms.h"
#include "../util/intern.h"
#include "../util/jitter.h"
#include "../util/u64map.h"
#include "bpf_procs.h"
#include "bpf_sampler.h"

enum { BPF_BACKEND_MAX_FRAMES = STACKWALK_MAX_FRAMES + V8W_KSTACK_MAX + 8 };

/* The counters at one moment (the steady state is what the second half of a --duration added). */
struct bpf_mark {
	bool taken;
	uint64_t time_ns, cpu_ns;
	unsigned long samples, reads;
};

struct bpf_backend {
	struct intern *strings;
	sample_sink_fn sink;
	void *sink_ctx;
	struct bpf_procs procs;
	struct bpf_sampler *bs;
	struct node_scan scan;
	struct kallsyms ksyms;
	bool have_ksyms;
	uint32_t s_kernel_unknown;
	bool all_node;        /* every node process, rescanned while sampling */
	bool quiet;
	pid_t child;          /* launch mode: the program, reaped here once it ends; else 0 */
	bool child_reaped;
	uint64_t last_check_ns, last_scan_ns;
	struct jitter rng;        /* the intervals at which the ring buffer is read */
	uint64_t read_every_ns;   /* their mean */
	struct frame frames[BPF_BACKEND_MAX_FRAMES];
	/* statistics */
	unsigned long samples, dropped, truncated, no_js, malformed;
	unsigned long too_deep; /* truncated where the kernel's record was full */
	unsigned long waited;   /* samples of threads waiting for a CPU (V8W_F_WAITED weights) */
	unsigned long stopped;  /* samples of threads stopped, or waiting for a CPU after (V8W_F_STOPPED) */
	unsigned long gc_slept; /* samples of a main thread asleep inside a GC (V8W_F_SLEPT) */
	unsigned long slept;    /* --v8-self: samples of a main thread asleep elsewhere (V8W_F_SLEPT) */
	unsigned long v8_discarded; /* --v8-self: records left out (walker/stackwalk.h) */
	unsigned long reads;    /* reads of the targets' memory by the walks (a process's own count
				 * starts again when it is opened again after an exec) */
	uint64_t period_ns;     /* the sampling period: a waited record's samples are this apart */
	uint64_t max_lag_ns;    /* from a sample to its walk (heap reads happen then) */
	uint64_t start_ns, end_ns;
	uint64_t half_ns;       /* halfway through --duration (0: no duration) */
	struct bpf_mark half, fin; /* taken then, and when sampling ended: the steady state between */
	struct bpf_sampler_counts kernel; /* the kernel's counts (records lost to a full ring,
					   * stale waits), kept when the program is unloaded */
	struct u64map tids;     /* distinct (pid, tid) seen */
	struct stall_tracker *stalls; /* --stalls: each stall's samples and end go here (else NULL) */
};

extern const struct sampler_backend_ops bpf_backend_ops;

static inline struct sampler_backend bpf_backend(struct bpf_backend *b)
{
	return (struct sampler_backend){.ops = &bpf_backend_ops, .ctx = b};
}

/* Nothing is loaded yet: processes can be opened (bpf_procs_add) before the sampler starts. */
void bpf_backend_init(struct bpf_backend *b, struct intern *strings, const struct target_opts *to,
		      sample_sink_fn sink, void *sink_ctx, bool all_node);
/* Load the program and start the perf events; false with *fail filled. */
bool bpf_backend_start(struct bpf_backend *b, const struct bpf_sampler_config *cfg,
		       struct bpf_failure *fail);
/* Name kernel frames (--kernel); false when /proc/kallsyms shows no addresses. */
bool bpf_backend_load_kallsyms(struct bpf_backend *b);
/* Put the processes opened so far in the kernel's filter; false after saying which one failed. */
bool bpf_backend_sample_opened(struct bpf_backend *b);
/* Open every node process not sampled yet and sample it (--all-node). */
void bpf_backend_add_node_processes(struct bpf_backend *b);
/* Launch mode: the held child, sampled once its execve shows node; returns 0 or -errno. */
int bpf_backend_add_child(struct bpf_backend *b, pid_t pid);
/* The steady state (the second half of a --duration): reads of the target per sample and
 * v8walk's own CPU in % and in µs per sample; false when the run had no duration or no samples
 * in its second half. */
bool bpf_backend_steady(const struct bpf_backend *b, double *reads_per_sample, double *cpu_percent,
			double *cpu_us_per_sample);
/* Warn of each process whose samples fall far below its CPU time (cpu_share.h): over --period
 * `seq` (note: for the export's period line), or over the whole run (the summary). */
void bpf_backend_check_period(struct bpf_backend *b, unsigned long seq, struct strbuf *note);
void bpf_backend_check_run(struct bpf_backend *b);
/* Unload (if still loaded) and free everything. */
void bpf_backend_free(struct bpf_backend *b);

#endif
