/* capture.h — what one stop of a thread copied, kept until its frames are named: the registers,
 * the stack bounds and a memory snapshot of the stack chunk (to which the unwind, once the thread
 * runs again, adds the heap objects its JS frames name). Stops that arrive together (every
 * thread due at one tick) are each held only while their own copy is made; all of them are
 * unwound and decoded after the last one resumed. A pool of captures is reused from tick to
 * tick. */
#ifndef V8WALK_CAPTURE_H
#define V8WALK_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../mem/memsnap.h"
#include "../mem/regs.h"
#include "prefetch.h"
#include "stackwalk.h"
#include "unwind.h"

struct capture {
	pid_t tid;
	bool ok;           /* registers and stack were copied */
	char state;        /* its /proc state when the sample was requested */
	uint64_t time_ns;  /* when it was stopped (monotonic) */
	uint64_t asked_ns; /* when the stop was asked for */
	uint32_t ticks;    /* the ticks the stop stands for: 1, more when it came ticks late */
	uint64_t held_ns;  /* how long the thread was held stopped */
	struct regset regs;
	struct stack_bounds bounds;
	bool bounds_known; /* the stack's mapping was known at the stop (else bounds are a guess) */
	struct memsnap snap;
	uint8_t *stack_buf;  /* the stack as a helper copied it (ptrace/stack_copier.h), if it did */
	size_t stack_cap, stack_got;
	uint64_t stack_from;
	/* the stack as the kernel copied it at the stop, lent from its ring (ptrace/switch_copy.h)
	 * until it is put into the snapshot once the thread runs again: [sp, sp + lent_len +
	 * lent_more_len), in one piece or two (it wrapped around the ring's end) */
	bool lent;
	const uint8_t *lent_stack, *lent_more;
	size_t lent_len, lent_more_len;
	struct walk_stats ws; /* of the unwind (raw frame count, how it ended) */
};

struct capture_pool {
	struct capture **v;
	size_t n, used, cap; /* v[0..used) hold captures waiting to be decoded */
	struct memsrc *backing;
	size_t snap_budget;
};

void capture_pool_init(struct capture_pool *p, struct memsrc *backing, size_t snap_budget);
void capture_pool_free(struct capture_pool *p);
/* A capture to fill (reset), or NULL when `max` captures are already waiting. */
struct capture *capture_pool_take(struct capture_pool *p, size_t max);
/* Every waiting capture has been decoded: all are free again. */
void capture_pool_release(struct capture_pool *p);

#endif
