/* async_frames.h — a sampled stack continued through the async functions awaiting it (--async).
 * A function resumed after an `await` (or a .then/.catch callback) runs on the microtask queue:
 * physically its callers are the queue's frames (the await closure, PromiseFulfillReactionJob,
 * RunMicrotasks, the microtask checkpoint) down to the event loop. Logically its callers are the
 * async functions awaiting it, the chain Error.stack lists as `at async f`: those replace the
 * queue's frames, from the resuming closure (or the job builtin a callback returns to) through
 * MicrotaskQueue::PerformCheckpoint and the API call into it, so that what remains below is what
 * ran the checkpoint (processTicksAndRejections, a timer's or a callback's scope).
 *
 * Found from the copied stack (the job frame, the closure in the frame it called, or the promise
 * the job keeps in its first spill slot), followed through the heap (v8/async_chain.h) once the
 * thread runs again. In a live process the words the walk read are read again afterwards in one
 * batch: a chain that moved or changed meanwhile is not shown; one frame says so instead (counted).
 * The walk is a function of the stack's words it starts from and the heap's words it read: the
 * next sample with the same stack words has the same chain while those heap words hold, which the
 * same one batched read tells; only when they do not is it walked again (a loop that awaits each
 * unit of its work costs one read per sample, not one per object of its chain). */
#ifndef V8WALK_ASYNC_FRAMES_H
#define V8WALK_ASYNC_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "../symtab/addrspace.h"
#include "../util/u64map.h"
#include "../v8/async_chain.h"
#include "../v8/builtin_ids.h"
#include "../v8/runtime.h"
#include "unwind.h"

enum {
	ASYNC_SPANS = 8,
	ASYNC_MAX_FRAMES = 128,
	ASYNC_SITE_FRAMES = 8, /* frames between a job and the code it resumed that are looked at */
	ASYNC_JOB_SLOTS = 4,   /* spill slots of a job frame where its promise may be */
};

struct code_span {
	uint64_t lo, hi; /* link-time addresses in V8's module */
};

struct async_stats {
	unsigned long sites;   /* stacks running on the microtask queue from a job */
	unsigned long chains;  /* of those, chains shown (an empty one too) */
	unsigned long frames;  /* async frames shown */
	unsigned long moved;   /* not shown: a GC moved an object of the chain before it was read */
	unsigned long changed; /* not shown: the chain changed before it was read again */
	unsigned long reads;   /* words the walks read */
	unsigned long reused;  /* chains shown that were the previous one's, its words read again */
};

/* Where a stack is resumed from the microtask queue, and the stack's words its chain is read from
 * (the copy's: nothing of the heap is read until the thread runs again). */
struct async_site {
	int from, to; /* raw frames [from, to]: the queue's, replaced by the chain */
	int job;      /* the job builtin's raw frame */
	/* the frames the job called, from the job's: their function and context slots (0 and 0: a
	 * typed frame); an await closure's context holds the generator it resumes */
	int nframes;
	uint64_t fn[ASYNC_SITE_FRAMES], ctx[ASYNC_SITE_FRAMES];
	/* the job's first spill slots: a callback's job keeps the promise it settles there */
	int nslots;
	uint64_t slot[ASYNC_JOB_SLOTS];
};

/* The last chain walked in a live process, the site it was read from and the words it read. */
struct async_memo {
	bool valid;
	struct async_site site;
	int max; /* the room it had */
	int n;
	struct async_trail trail;
	struct async_frame frames[ASYNC_MAX_FRAMES];
};

struct async_frames {
	bool on;      /* --async */
	bool loaded;  /* the binary's tables were read (once, on first use) */
	struct builtin_ids ids;
	struct u64map sfi_kinds;
	/* MicrotaskQueue::RunMicrotasks; the checkpoint that calls it; the API-call frames between a
	 * checkpoint and the JS that asked for it (V8's own; builtins are recognised by class) */
	struct code_span run[ASYNC_SPANS], checkpoint[ASYNC_SPANS], wrapper[ASYNC_SPANS];
	int nrun, ncheckpoint, nwrapper;
	struct memsrc *live; /* where the trail is read again; NULL: frozen memory (a core) */
	struct async_trail trail;
	bool trail_read;     /* the trail was just read again (a reused chain): no frames named since
			      * need it read once more */
	struct async_memo memo;
	struct async_stats st;
};

enum async_outcome {
	AO_CHAIN,   /* frames read (maybe none: nobody awaits) */
	AO_MOVED,   /* a GC moved what the chain was read from */
	AO_CHANGED, /* the chain changed before it was checked (it ran on meanwhile) */
};

void async_frames_init(struct async_frames *a);
void async_frames_free(struct async_frames *a);
/* Read the tables of the V8 binary (builtin names, the queue's native functions), once. */
void async_frames_load(struct async_frames *a, const struct v8_runtime *rt, struct addrspace *as);

/* Find the site in raw[0..nraw): has_js[i] says whether raw frame i produced a JS frame. Reads
 * the stack slots of the job's frames (through h), nothing of the heap. */
bool async_site_find(struct async_frames *a, const struct v8_heap *h, const struct v8_runtime *rt,
		     struct addrspace *as, struct pc_class_cache *classes, const struct raw_frame *raw,
		     int nraw, const bool *has_js, struct async_site *site);
/* The chain awaiting the site's function or callback, innermost first; the walk's words are in
 * a->trail (async_frames_check reads them again). In a live process, the previous call's chain
 * when the site's words are the same and the heap's it read hold. */
int async_site_chain(struct async_frames *a, const struct v8_heap *h, const struct async_site *site,
		     struct async_frame *out, int max, enum async_outcome *how);
/* After the frames were named: does the chain still stand (a->live re-read)? Counts the outcome. */
enum async_outcome async_frames_check(struct async_frames *a, enum async_outcome how, int nframes);

#endif
