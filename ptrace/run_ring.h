/* run_ring.h — whether a thread is on a CPU, from the kernel's context-switch records, with no
 * system call: a perf software event per thread (PERF_COUNT_SW_DUMMY, context_switch) writes an
 * 8-byte PERF_RECORD_SWITCH each time the thread is switched in or out into a one-page ring
 * mapped read-only, newest record at data_head (write_backward: the kernel writes over the
 * oldest). A tick reads the newest record: switched in, or switched out while still runnable
 * (preempted), is running; switched out otherwise is asleep (or stopped), and whether it has been
 * switched at all since the last look says whether a state read from /proc before still holds.
 * The ring's bytes are the kernel's, but are checked like any other input. */
#ifndef V8WALK_RUN_RING_H
#define V8WALK_RUN_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf_ring.h"

enum run_look {
	RUN_UNKNOWN,       /* no ring, no record yet, or one that does not read as a switch */
	RUN_ON_CPU,        /* its newest record: switched in */
	RUN_PREEMPTED,     /* switched out still runnable: waits for a CPU */
	RUN_UNSWITCHED,    /* not switched since the last look, when it was switched out to wait or
			    * had no record yet (it has not been switched since the ring opened) */
	RUN_ASLEEP_MOVED,  /* switched out to wait, after running since the last look */
};

struct run_ring {
	int fd; /* -1: none (then every look is RUN_UNKNOWN) */
	struct perf_ring ring;
	uint64_t seen_head; /* data_head at the last look */
	bool seen;
};

/* A ring that is not open (fd -1). */
void run_ring_none(struct run_ring *r);
/* Are rings to be opened on the kernel of this uname release ("6.1.0-56-arm64")? Not before the
 * machine's ARCH_THREAD_PERF_EVENTS_FROM (arch_defs.h); a release that does not read as
 * MAJOR.MINOR counts as new. */
bool run_rings_allowed(const char *release);
/* Open tid's event and ring, its descriptor below fd_ceiling (fd_room.h: else -EMFILE); 0, or
 * -errno (then r is left without a ring). */
int run_ring_open(struct run_ring *r, pid_t tid, int fd_ceiling);
void run_ring_close(struct run_ring *r);
/* What the newest record says, and whether the ring moved since the last look. */
enum run_look run_ring_look(struct run_ring *r);

/* The decoder run_ring_look uses, over a ring's bytes (size a power of two): the record at head,
 * and whether head differs from the last look's (have_last false: no last look). */
enum run_look run_ring_decode(const uint8_t *data, uint64_t size, uint64_t head, uint64_t last_head,
			      bool have_last);

#endif
