/* async_chain.h — the async functions awaiting a promise, followed through the heap as V8's
 * CaptureAsyncStackTrace (isolate.cc) follows them for Error.stack's `at async f` frames: while the
 * promise is pending with exactly one reaction, the reaction's handler says who waits — an await
 * closure (its context holds the suspended async function or async generator, whose own promise
 * is followed next), a Promise.all/allSettled/any element closure (its context holds the
 * combinator's capability), Promise.race's and `new Promise`'s resolving function (its context
 * holds the promise), or anything else (the reaction's own promise or capability). Every read is
 * type-checked and the walk is bounded; a map word that is a forwarding address (a GC moved the
 * object since its address was read) ends the walk as AE_MOVED, never guessed past.
 *
 * A walk of a live process may record the words it read (struct async_trail); reading them again
 * after the walk (async_trail_holds) tells whether the chain still stands as it was read. */
#ifndef V8WALK_ASYNC_CHAIN_H
#define V8WALK_ASYNC_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "builtin_ids.h"
#include "heap.h"

enum async_frame_kind { AF_FUNCTION, AF_ALL, AF_ALLSETTLED, AF_ANY };

struct async_frame {
	uint8_t kind;            /* enum async_frame_kind */
	int32_t index;           /* combinators: the element's index */
	uint64_t generator;      /* AF_FUNCTION: the suspended JSAsyncFunctionObject/JSAsyncGeneratorObject */
	uint64_t function;       /* its JSFunction */
	uint64_t receiver;
	int64_t suspend_pos;     /* its input_or_debug_pos while suspended: Smi(bytecode offset + the
				  * array's header - 1), as an interpreted frame's offset slot (-1: none) */
};

enum async_end {
	AE_NOBODY,  /* a pending promise nobody awaits: the natural end (top level, fire and forget) */
	AE_SETTLED, /* a settled promise (its awaiter is already queued to run) */
	AE_SEVERAL, /* several reactions: V8 stops too */
	AE_OTHER,   /* a handler or promise V8 does not follow either */
	AE_LIMIT,   /* out of room, or the hop limit */
	AE_MOVED,   /* a forwarding address where a map word belongs: a GC moved it meanwhile */
	AE_BAD,     /* an object of a type V8 never keeps there (torn or garbage), or an awaiter that
		     * is not suspended */
};

/* The words a walk read, to be read again. */
enum { ASYNC_TRAIL_WORDS = 256, ASYNC_TRAIL_OBJECTS = 96 };
struct async_trail {
	struct trail_word {
		uint64_t obj;  /* untagged start */
		uint32_t off;
		uint64_t val;
	} w[ASYNC_TRAIL_WORDS];
	size_t n;
	bool overflow; /* more words than fit: cannot be checked */
};

struct async_walk {
	const struct v8_heap *h;
	const struct builtin_ids *ids; /* NULL or empty: await closures are known by their context alone */
	struct u64map *sfi_kinds;      /* optional: SharedFunctionInfo → enum async_builtin + 1 (builtin
					* SharedFunctionInfos live in read-only space and never move) */
	struct async_trail *trail;     /* optional */
	unsigned long reads;           /* words read (statistics) */
	bool moved;                    /* a forwarding address was seen */
};

/* One word of obj, counted and recorded in the trail. */
bool async_word(struct async_walk *w, uint64_t obj, int32_t off, uint64_t *v);
/* Is obj a JSPromise (its map word recorded)? */
bool async_is_promise(struct async_walk *w, uint64_t obj);
/* What a closure is to a chain (AB_NONE for anything but a builtin closure of async_builtin). */
enum async_builtin async_closure_kind(struct async_walk *w, uint64_t closure);
/* The generator an await closure resumes (context slot 2), or 0. */
uint64_t async_closure_generator(struct async_walk *w, uint64_t closure);
/* Is obj a JSAsyncFunctionObject or a JSAsyncGeneratorObject? */
bool async_is_generator(struct async_walk *w, uint64_t obj);
/* A generator's continuation: >= 0 suspended, -1 closed, -2 running; INT64_MIN unreadable. */
int64_t async_generator_state(struct async_walk *w, uint64_t gen);
/* A suspended generator's frame (function, receiver, suspended position). */
bool async_generator_frame(struct async_walk *w, uint64_t gen, struct async_frame *f);
/* The promise a generator settles: an async function's own, an async generator's first
 * request's (0 when it has none). */
uint64_t async_generator_promise(struct async_walk *w, uint64_t gen);

/* The frames awaiting `promise`, innermost first (at most max); *end says why the walk ended. */
int async_chain_from_promise(struct async_walk *w, uint64_t promise, struct async_frame *out, int max,
			     enum async_end *end);
/* The frames awaiting generator gen (not gen itself). */
int async_chain_of_generator(struct async_walk *w, uint64_t gen, struct async_frame *out, int max,
			     enum async_end *end);
/* Is this a pending JSPromise? */
bool async_promise_pending(struct async_walk *w, uint64_t promise);

/* Read the trail's words again through `live` (one batched read); true when every one is as it
 * was (an overflowing trail never holds). */
bool async_trail_holds(const struct async_trail *t, struct memsrc *live);

#endif
