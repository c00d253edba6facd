/* async.h — the "async" frames V8 appends to Error.stack (isolate.cc CaptureAsyncStackTrace):
 * when an async function was resumed from the microtask queue, the builtin closure that resumed
 * it (AsyncFunctionAwaitResolveClosure) is on the stack; its context holds the resumed function's
 * generator object, whose promise is awaited by the next async function, and so on: each
 * pending promise with a single reaction whose handler's context holds a suspended async
 * function adds that function, at the bytecode offset where it awaits. */
#ifndef V8WALK_ASYNC_H
#define V8WALK_ASYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

struct async_frame {
	uint64_t function;        /* JSFunction of the suspended async function */
	uint64_t receiver;
	int64_t bytecode_offset;  /* where it awaits (-1 when unknown) */
};

/* The async generator object a builtin closure's context holds (its extension slot), or 0. */
uint64_t async_generator_of_closure(const struct v8_heap *h, uint64_t closure);
/* The chain of async functions awaiting the one running with generator `running`, innermost
 * first. Returns the count. */
int async_callers(const struct v8_heap *h, uint64_t running, struct async_frame *out, int max);

#endif
