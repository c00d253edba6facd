/* profile.h — the aggregated samples every writer reads: a stack table (a trie over interned
 * frames, root first: process, thread, then the outermost frame) with the samples that ended at
 * each node, a table of processes and threads, and one compact record per sample (its stack's
 * leaf node and the time since the previous sample), so time order survives in
 * sizeof(struct sample_rec) = 8 bytes per sample plus the distinct stacks. */
#ifndef V8WALK_PROFILE_H
#define V8WALK_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "../walker/frame.h"
#include "sample.h"

enum line_mode { LINES_CURRENT, LINES_FUNCTION, LINES_NONE };

/* pnode.frame of the two root levels (their `owner` says which process or thread) */
enum { PNODE_PROCESS = UINT32_MAX, PNODE_THREAD = UINT32_MAX - 1 };

struct pnode {
	uint32_t frame;       /* index into frames, or PNODE_PROCESS / PNODE_THREAD */
	uint32_t parent;      /* node index (0 = the root sentinel) */
	uint32_t first_child, next_sibling; /* 0 = none */
	uint32_t owner;       /* index into threads (for a process node: its first thread) */
	uint64_t self, total;
};

/* One step of a thread's latest stack, root first: its frame's identity words and its node. */
struct path_step {
	uint32_t words[6];
	uint32_t node;
};

struct profile_thread {
	pid_t pid, tid;
	uint32_t process_name; /* interned comm */
	uint32_t role;         /* interned; the latest the sampler gave */
	uint32_t container;    /* as in struct sample: 0 = none, else 1 + interned short id */
	uint32_t node;         /* its thread node */
	uint64_t samples;
	/* the thread's latest stack: the next one shares most of it (the outer frames of a
	 * stack change little from one sample to the next), and the shared part is walked by
	 * comparing identities, not by interning and looking up each frame */
	struct path_step *path;
	size_t npath, cappath;
};

/* One sample in time order. */
struct sample_rec {
	uint32_t node;  /* the leaf node of its stack */
	int32_t dt_us;  /* µs since the previous sample of the profile (clamped) */
};

/* What a run says about itself, for the formats that show it (titles, pprof, cpuprofile). */
struct profile_meta {
	char target[256];   /* the command line, or the pid(s) */
	char runtime[128];  /* "Node v22.1.0, V8 12.4.254.14" (may be empty) */
	double rate_hz;
	uint64_t start_ns, end_ns; /* the run (CLOCK_MONOTONIC) */
	bool idle;          /* wall-clock sampling (--idle) */
	double stalls_ms;   /* --stalls: only the event loop's iterations this long were sampled */
	bool v8_self;       /* charged as V8's profiler charges (--v8-self): its (garbage collector)
			     * is V8's VM state GC (walker/gc_frames.h frame_in_gc_state) */
};

/* An executable mapping of a sampled process, for the formats that name modules (pprof). */
struct profile_module {
	pid_t pid;
	uint64_t start, limit, offset; /* [start, limit) maps the file from offset */
	uint32_t path;                 /* interned */
	char build_id[129];            /* hex, "" when unknown */
};

struct profile {
	struct intern *strings;
	struct intern frame_keys; /* the identity words of each distinct frame (as bytes) → index */
	struct frame *frames;     /* per index: the identity, with the first frame's pc, module
				   * and column */
	size_t nframes, capframes;
	struct pnode *nodes;      /* nodes[0] is the root sentinel */
	size_t nnodes, capnodes;
	struct u64map children;   /* (parent << 32 | frame, pid or tid) + 1 → node index */
	struct profile_thread *threads;
	size_t nthreads, capthreads;
	struct u64map thread_index; /* (pid << 32 | tid) + 1 → index */
	struct sample_rec *recs;
	size_t nrecs, caprecs;
	uint64_t first_ns, last_ns; /* times of the first and the latest sample */
	enum line_mode lines;
	/* no time order: samples are added as weighted stacks (report's counts per stack) and no
	 * record is kept, so memory goes with the distinct stacks, not the samples; the writers
	 * take a stack's samples from its leaf node's self count (profile_untimed) */
	bool untimed;
	uint64_t samples;
	struct profile_meta meta;
	struct profile_module *modules;
	size_t nmodules, capmodules;
};

/* The node index of a sample's stack: a real frame (not a root level or the sentinel). */
static inline bool pnode_is_frame(const struct pnode *nd)
{
	return nd->frame < PNODE_THREAD;
}
/* Times: the profile's start and end (the run's, or the samples' when the run did not say). */
uint64_t profile_start_ns(const struct profile *p);
uint64_t profile_end_ns(const struct profile *p);

void profile_init(struct profile *p, struct intern *strings, enum line_mode lines);
void profile_free(struct profile *p);
/* Add one sample. */
void profile_add(struct profile *p, const struct sample *s);
/* Make p (empty, just initialised) a profile without time order (profile.untimed). */
void profile_untimed(struct profile *p);
/* Add `weight` samples of the same stack at the same time (one walk of the stack table; one
 * record each, so that the time-ordered formats count them all, none in an untimed profile). */
void profile_add_weighted(struct profile *p, const struct sample *s, uint64_t weight);
/* The same as a sink (ctx = the profile). */
void profile_sink(void *ctx, const struct sample *s);
/* The thread a node belongs to (root sentinel: NULL). */
const struct profile_thread *profile_node_thread(const struct profile *p, uint32_t node);
/* Append a node's text: a frame (frame_text.h), or a root label "comm (pid)" / "role (tid)"; a
 * process in a container is "comm [container=ID] (pid)". */
void profile_node_text(const struct profile *p, uint32_t node, bool annotate, struct strbuf *out);
/* The thread `spec` names: a tid, or a role ("main", "worker"…; the first such thread); NULL
 * spec: the first main thread (or the first thread). -1 when none matches. */
long profile_find_thread(const struct profile *p, const char *spec);
void profile_add_module(struct profile *p, const struct profile_module *m);
/* The module of `pid` (or, failing that, of any process) that maps pc, or NULL. */
const struct profile_module *profile_module_at(const struct profile *p, pid_t pid, uint64_t pc);
/* Memory the aggregation holds (records, the stack table and its index, the frame table), in
 * bytes; the interned strings themselves are shared with the samplers and not counted. */
size_t profile_bytes(const struct profile *p);

#endif
