/* sample.h — one sample as every sampler hands it on: when (CLOCK_MONOTONIC ns), which process
 * and thread (pid, tid, the process's kernel name, the thread's role: "main", "worker", a kernel
 * thread name…), the container the process runs in, and the frames, innermost first. Labels such as "worker (4250)" are made by the
 * writers from these fields, never by the samplers. */
#ifndef V8WALK_SAMPLE_H
#define V8WALK_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#include "../walker/frame.h"

struct sample {
	uint64_t time_ns;           /* CLOCK_MONOTONIC, when the stack was taken */
	pid_t pid, tid;
	uint32_t process_name;      /* interned: the process's kernel name (comm) */
	uint32_t thread_role;       /* interned: walker/thread_role.h */
	uint32_t container;         /* 0: in no container; else 1 + its interned short id
				     * (sampling/container_id.h) */
	const struct frame *frames; /* innermost first */
	int n;
	uint64_t stall_start;       /* --stalls: when the stalled loop iteration it was taken in
				     * began (CLOCK_MONOTONIC; 0: not a stall's sample) */
};

/* A consumer of samples (the aggregation, `top`, …). */
typedef void (*sample_sink_fn)(void *ctx, const struct sample *s);

#endif
