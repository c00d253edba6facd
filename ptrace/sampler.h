/* sampler.h — live sampling over ptrace: on a jittered timer, stop each running thread of the
 * target (one at a time), copy its registers and stack, walk it while it is stopped, resume it,
 * then name native frames and hand the stack to a sink. */
#ifndef V8WALK_SAMPLER_H
#define V8WALK_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../profile/sample.h"
#include "../util/histogram.h"
#include "../util/intern.h"
#include "../walker/frame.h"
#include "../walker/maps_refresh.h"
#include "../mem/memsrc_live.h"
#include "../util/jitter.h"
#include "../util/rt_sched.h"
#include "../walker/capture.h"
#include "../walker/stackwalk.h"
#include "../walker/validate.h"
#include "../walker/thread_labels.h"
#include "stack_copier.h"
#include "switch_copy.h"
#include "tracer.h"


struct sampler_opts {
	double rate_hz;      /* mean sampling rate (intervals are jittered ±50%) */
	bool idle;           /* also sample threads that are not running (wall-clock view) */
	size_t stack_chunk;  /* bytes of stack copied per sample before walking */
	bool normal_priority; /* never switch to SCHED_FIFO while threads are stopped */
	uint64_t stop_limit_ns; /* end a stop whose stack copy takes longer (0: no limit) */
	enum stack_copy_mode stack_copy; /* who copies a stopped thread's stack (switch_copy.h) */
};

/* The counters at one instant: the second half of a run (from the middle of --duration to its
 * end) is its steady state, caches warm. */
struct sampler_mark {
	bool taken;
	uint64_t time_ns, cpu_ns;
	uint64_t samples, reads, stop_reads, stops; /* samples: walked (not a late stop's extra ticks) */
};

struct sampler_stats {
	unsigned long ticks, samples, empty, truncated, no_js, behind;
	unsigned long missed; /* a tick that no sample stands for (the copy was refused or cut) */
	unsigned long late;   /* ticks stood for by a stop that came after them: the thread, runnable,
			       * waited for a CPU to reach it (its stack the same all along) */
	uint64_t start_ns, end_ns;
	struct histogram pauses; /* how long each thread was held stopped */
	struct histogram main_pauses; /* of those, the main thread's (what the floor probe stops) */
	uint64_t main_stops_ns; /* the main thread's stops in all, each from its request to its resume */
	uint64_t max_lag_ns; /* longest wait from PTRACE_INTERRUPT to the stop */
	unsigned long stop_reads;  /* reads of target memory while a thread was held stopped */
	unsigned long unvalidated; /* samples whose JS frames a GC moved before they were named */
	unsigned long gc_slept; /* samples of the main thread asleep inside a collection */
	unsigned long slept;    /* --v8-self: samples of the main thread asleep elsewhere than in a
				 * collection or its event loop's wait */
	unsigned long v8_discarded; /* --v8-self: stops left out, as V8's profiler leaves them */
	unsigned long cut; /* stops ended at stop_limit_ns, the sample dropped (stack_copier.h) */
	unsigned long kernel_copies; /* stops whose stack the kernel copied (switch_copy.h) */
	unsigned long snapshot_retakes; /* --dump: stops taken again (a GC moved what the first named) */
	struct validation validation;
	bool target_exited;
	int exit_status;
	struct sampler_mark half, end; /* taken halfway through --duration, and when sampling ended */
	/* where the time of a sample went (sums over all stops, ns): while stopped, registers and the
	 * stack copy; after the thread resumed, the unwind and the batched copy of the frames' objects */
	uint64_t regs_ns, stack_ns, unwind_ns, objects_ns;
	uint64_t stack_max_ns; /* the longest a stop waited for its stack copy */
};

struct thread_info; /* per-thread sampler state (the /proc state of a requested sample) */

struct captured_sample {
	pid_t tid;
	uint64_t time_ns;    /* when it was stopped */
	uint64_t asked_ns;   /* when the stop was asked for */
	uint32_t ticks;      /* the ticks it stands for (a sample each) */
	char state;          /* its /proc state when the sample was requested */
	uint64_t pause_ns;   /* how long it was held stopped */
	struct walk_stats ws;
	int n;
	struct frame *frames;
	bool moved;          /* its JS frames were not named: what they name moved (mark_unvalidated) */
};

struct sampler {
	struct sampler_opts opts;
	struct tracer *tr;
	struct stackwalk *sw;
	struct addrspace *as;
	struct memsrc_live live;
	struct intern *strings;
	sample_sink_fn sink;
	void *sink_ctx;
	struct sampler_stats st;
	pid_t pid;
	uint32_t process_name; /* interned comm */
	uint32_t container;    /* struct sample's: 0 or 1 + interned short container id */
	struct jitter rng;     /* the ticks' intervals */
	uint64_t pac_mask;     /* of its return addresses (mem/regs.h), read at its first stop */
	bool pac_known;
	struct maps_refresh maps_fresh;
	struct thread_labels labels;
	/* what each stop copied, waiting to be decoded once its thread runs again */
	struct capture_pool captures;
	struct rt_sched rt;
	struct switch_copy kcopy;    /* stacks the kernel copied at each stop (when kcopy.on) */
	struct stack_copier *copier; /* NULL: stacks are copied inline (no limit, or no helper) */
	const char *copier_why;      /* why there is no helper although a limit was asked */
	uint64_t tick_ns; /* when the threads of the current tick were asked to stop */
	/* the schedule of sampler_step: the next tick, the last look for new threads, the middle
	 * and the end of the run (0: not known) */
	uint64_t next_tick_ns, last_scan_ns, half_ns, end_ns;
	/* scratch for the frames of the capture being decoded */
	struct frame frames[STACKWALK_MAX_FRAMES + 8];
	/* captured samples waiting for stage 2 (native names, labels, the sink) */
	struct captured_sample *queue;
	size_t nqueue, capqueue;
	struct thread_info *tinfo;
	size_t ntinfo, captinfo;
};

void sampler_init(struct sampler *s, pid_t pid, const struct sampler_opts *o, struct tracer *tr,
		  struct stackwalk *sw, struct addrspace *as, struct intern *strings,
		  sample_sink_fn sink, void *sink_ctx);
void sampler_free(struct sampler *s);
/* The stop callback to give tracer_attach (ctx = the sampler): copies only what must be
 * consistent with the stop — the registers and the stack. The copy is unwound and its frames
 * named after every thread asked at that tick has resumed, and kept only if the objects they were
 * read from were not moved meanwhile (walker/prefetch.h prefetched_moved, walker/validate.h). */
void sampler_on_stop(void *ctx, struct tthread *t);
/* The live loop, in the steps the CLI's loop drives (sampling/backend.h; ptrace_backend.h):
 * sampling starts at now and ends at end (0: unknown; from its middle on, the steady-state
 * figures are counted, and no tick is made at or after it); */
void sampler_start(struct sampler *s, uint64_t now, uint64_t end);
/* keep the target's events flowing, ask the threads that are due to stop (the stops are handled
 * as they arrive, through the tracer's SIGCHLD signalfd), name what was copied once every stop of
 * the tick was handled and hand it to the sink; returns when to step again (0: the target is
 * gone); */
uint64_t sampler_step(struct sampler *s, uint64_t now);
/* sampling ended (the statistics' end). */
void sampler_end(struct sampler *s);

/* One-shot: stop each thread in turn (whatever its state), walk it, resume it, and hand the
 * stack to cb with the thread's role ("main", "worker", its kernel name…), its /proc state
 * before the stop and how long it was held (all its stops together). A thread whose copy could
 * not be named because a GC moved what it named, or whose copy failed, is stopped and copied
 * again, up to SNAPSHOT_ROUNDS times in all within timeout_ns: a dump is one picture, each stop
 * still as short as a sample's. Threads that do not stop within timeout_ns are reported with no
 * frames; sampler_stats.snapshot_retakes counts the stops taken again. */
enum { SNAPSHOT_ROUNDS = 5 };
typedef void (*snapshot_fn)(void *ctx, struct tthread *t, const char *role, char state,
			    const struct frame *frames, int n, const struct walk_stats *ws,
			    uint64_t pause_ns);
void sampler_snapshot_all(struct sampler *s, uint64_t timeout_ns, snapshot_fn cb, void *ctx);

#endif
