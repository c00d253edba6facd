/* backend.h — the one interface of the two samplers, ptrace (ptrace/ptrace_backend.c) and eBPF
 * (bpf/bpf_backend.c): each opens its targets its own way (attach or adopt one process; several
 * pids, every node process or a launched program), then the CLI's loop (cli/run_loop.c) drives
 * either through these operations and reads the same statistics from both. */
#ifndef V8WALK_BACKEND_H
#define V8WALK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/histogram.h"

/* What a run did, in the same terms for both samplers (the summary line, `top`'s header). */
struct run_stats {
	const char *sampler;      /* "ptrace", "eBPF" */
	unsigned long samples;
	unsigned long no_js;      /* samples without a JS frame */
	unsigned long truncated;  /* stacks not walked to their end */
	unsigned long malformed;  /* records that could not be walked at all (eBPF) */
	unsigned long missed;     /* samples due but not taken: a stop that had not arrived
				   * (ptrace), records lost to a full ring buffer (eBPF) */
	const char *missed_as;    /* how the summary calls them: "missed", "lost" */
	unsigned long waited;     /* eBPF: of the samples, those of threads waiting for a CPU */
	unsigned long stopped;    /* eBPF: those of threads stopped by a tracer or a signal (and
				   * waiting for a CPU once resumed) */
	unsigned long gc_slept;   /* of the samples, those of a main thread asleep inside a GC */
	unsigned long slept;      /* --v8-self: those of a main thread asleep elsewhere than in a GC
				   * or its event loop's wait, which V8's profiler samples too */
	unsigned long v8_discarded; /* --v8-self: walked but left out, as V8's profiler records no
				     * sample where a frame is set up or torn down */
	unsigned long stale_waits; /* eBPF: waits not counted, their thread having run since it was
				    * parked (a switch onto a CPU the sampler's program did not see) */
	unsigned long late;       /* ptrace: of the samples, the extra ticks a stop stood for that
				   * came after them (the thread waited for a CPU); not walked again */
	size_t processes, threads; /* sampled, seen */
	uint64_t max_lag_ns;      /* ptrace: interrupt to stop; eBPF: sample to its walk */
	uint64_t start_ns, end_ns;
	/* a sampler that stops threads (ptrace; pauses is NULL otherwise) */
	const struct histogram *pauses; /* how long each thread was held */
	const struct histogram *main_pauses; /* of those, the main thread's (the process's own tid) */
	uint64_t main_stops_ns; /* the main thread's stops in all, each from its request to its resume */
	unsigned long ticks;
	unsigned long reads, stop_reads; /* of target memory, and those while a thread was held */
	/* --async (walker/async_frames.h): samples resumed from the microtask queue; of those, with
	 * their chain (and its frames), not shown because a GC moved it, because it ran on */
	unsigned long async_sites, async_chains, async_frames, async_moved, async_changed;
};

struct sampler_backend_ops {
	const char *name;
	/* readable when step has work that did not come from its own timer */
	int (*wait_fd)(void *ctx);
	/* sampling starts at now_ns and ends at end_ns (0: when the loop stops it) */
	void (*start)(void *ctx, uint64_t now_ns, uint64_t end_ns);
	/* Do what is due at now_ns (fd_ready: wait_fd was reported readable) and hand the finished
	 * samples to the sink. Returns when the backend wants to run again if its fd stays quiet
	 * (monotonic ns), or 0 when no target is left to sample. */
	uint64_t (*step)(void *ctx, uint64_t now_ns, bool fd_ready);
	/* The run ended (duration, a signal, the targets' exit): take in what is on its way. */
	void (*end)(void *ctx);
	void (*stats)(void *ctx, struct run_stats *st);
	/* Let the targets go (they run on untouched); what was sampled stays readable. */
	void (*close)(void *ctx);
};

struct sampler_backend {
	const struct sampler_backend_ops *ops;
	void *ctx;
};

#endif
