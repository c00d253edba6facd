/* bpf_sampler.h — the user-space half of the eBPF sampler: load the CO-RE program
 * (bpf_sampler.bpf.c), open one software cpu-clock perf event per CPU (ticking a few times a
 * sampling period, one tick in as many kept at random) and attach the program to each, keep the
 * set of target processes in the kernel's filter map, and hand every record of the ring buffer to
 * a callback. Nothing here stops or traces a target. */
#ifndef V8WALK_BPF_SAMPLER_H
#define V8WALK_BPF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample_record.h"

struct bpf_sampler_config {
	double rate_hz;      /* per CPU, while a target thread runs on it */
	unsigned top_bytes;  /* stack bytes copied from the stack pointer up */
	bool kernel_stacks;  /* also record the kernel stack of samples taken in the kernel */
	bool on_cpu_only;    /* not the time a target thread waits for a CPU (preempted, runnable):
			      * without it that time is sampled too, one record of a weight per wait
			      * of a period or more, as ptrace and V8's own profiler sample it */
	uint64_t stall_ns;   /* --stalls: watch each target's main thread's event loop (its epoll
			      * waits) and sample only iterations that run this long, on a CPU
			      * and off (V8W_REC_STALL reports each); 0: sample every thread */
};

/* One record: `mem` holds rec->mem_len bytes of struct v8w_range + bytes (sample records).
 * Return 0 to go on. */
typedef int (*bpf_record_fn)(void *ctx, const struct v8w_record *rec, const uint8_t *mem,
			     size_t mem_len);

struct bpf_sampler;

/* Where opening failed (cli/diagnose_bpf.c turns this into advice). */
enum bpf_stage {
	BPF_STAGE_NOT_BUILT = 1, /* this v8walk was built without the eBPF sampler */
	BPF_STAGE_BTF,           /* the running kernel has no BTF (/sys/kernel/btf/vmlinux) */
	BPF_STAGE_LOAD,          /* loading the program or creating its maps */
	BPF_STAGE_PERF_EVENT,    /* perf_event_open of the cpu-clock events */
	BPF_STAGE_ATTACH,        /* attaching the program to events or tracepoints */
	BPF_STAGE_LOOP_WAITS,    /* --stalls: attaching to the epoll system calls' tracepoints */
};

/* The sampling period at rate_hz: the mean interval of the kept ticks, and what a record of a
 * wait is weighed in. */
static inline uint64_t bpf_sampler_period_ns(const struct bpf_sampler_config *cfg)
{
	return (uint64_t)(1e9 / cfg->rate_hz);
}

/* The cpu-clock events tick this many times a sampling period, and the program keeps a tick of a
 * target with the chance of one in as many (a random number of the kernel's). A lattice of ticks
 * at the rate would see a thread whose work repeats at the period at one phase of its cycle, and
 * the kernel makes such threads: a timed sleep due within its timer slack of a tick is woken by
 * that tick, which pulls a cycle of work and sleep a little shorter than the period onto the
 * lattice. Kept at random from a lattice this much finer, each phase of the cycle is as likely,
 * and the mean rate stays the rate whatever v8walk's own loop does. The ticks stay at most
 * BPF_TICK_MAX_HZ a CPU. */
enum { BPF_TICKS_PER_PERIOD_MAX = 16, BPF_TICK_MAX_HZ = 2000 };
static inline unsigned bpf_sampler_ticks_per_period(const struct bpf_sampler_config *cfg)
{
	double k = BPF_TICK_MAX_HZ / cfg->rate_hz;
	if (k < 1)
		return 1;
	return k > BPF_TICKS_PER_PERIOD_MAX ? BPF_TICKS_PER_PERIOD_MAX : (unsigned)k;
}

struct bpf_failure {
	enum bpf_stage stage;
	int err; /* errno */
};

/* Largest top_bytes the record leaves room for (the rest is for frames further down). */
enum { BPF_SAMPLER_MAX_TOP_BYTES = 12 << 10 };

/* Load, attach and start sampling (nothing is sampled until a target is added). Returns NULL
 * with *fail filled when that is impossible. */
struct bpf_sampler *bpf_sampler_open(const struct bpf_sampler_config *cfg, bpf_record_fn fn,
				     void *ctx, struct bpf_failure *fail);
/* --stalls: the main thread of tgid is outside its loop's wait since since_ns (it was seen so
 * as sampling began: a stall may already run); returns 0 or -errno. */
int bpf_sampler_loop_busy(struct bpf_sampler *b, pid_t tgid, uint64_t since_ns);
/* Start / stop sampling a process (by tgid as v8walk sees it); returns 0 or -errno. */
int bpf_sampler_add_target(struct bpf_sampler *b, pid_t tgid);
void bpf_sampler_remove_target(struct bpf_sampler *b, pid_t tgid);
/* A descriptor that becomes readable when the program wakes v8walk (--stalls: a stall ended, or
 * the ring fills up; otherwise no record wakes it). */
int bpf_sampler_fd(const struct bpf_sampler *b);
/* Hand the waiting records to the callback, for at most budget_ns (0: every one; naming records
 * can be slow, and the loop must still see its deadline and signals): the rest wait in the ring
 * buffer and -EAGAIN is returned. Returns the number consumed or -errno. */
int bpf_sampler_consume(struct bpf_sampler *b, uint64_t budget_ns);
/* What the kernel's side counted: records written, records lost to a full ring, and waits not
 * counted because their thread had run since it was parked (a switch onto a CPU not seen). */
struct bpf_sampler_counts {
	uint64_t samples, lost, stale;
};
void bpf_sampler_counters(const struct bpf_sampler *b, struct bpf_sampler_counts *out);
/* Detach every perf event and unload. */
void bpf_sampler_close(struct bpf_sampler *b);

#endif
