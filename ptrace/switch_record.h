/* switch_record.h — one PERF_RECORD_SAMPLE of the layout ptrace/switch_copy.c asks the kernel for
 * (PERF_SAMPLE_TID | TIME | REGS_USER | STACK_USER: the user's general registers and the stack
 * above sp, as the thread was when it switched out), decoded from a buffer or from a perf ring in
 * place. Its stack bytes are the target's and its sizes are checked against the record's own:
 * nothing in it is trusted. */
#ifndef V8WALK_SWITCH_RECORD_H
#define V8WALK_SWITCH_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../mem/regs.h"

/* The user registers the record carries: perf's numbers for the machine (arch_defs.h). The kernel
 * writes them by bit, lowest first. */
#define SWITCH_REGS_MASK ARCH_PERF_REGS_MASK
enum { SWITCH_NREGS = ARCH_PERF_NREGS };
/* A record's bytes besides the stack's: header, ids, time, the ABI word, the registers, the
 * stack's static and dynamic sizes. */
enum { SWITCH_RECORD_FIXED = 8 + 8 + 8 + 8 + 8 * SWITCH_NREGS + 8 + 8 };

struct switch_record {
	uint32_t pid, tid;
	uint64_t time_ns;     /* the event's clock (CLOCK_MONOTONIC, as asked) */
	bool has_regs;        /* false: the kernel had no user registers (a kernel thread) */
	struct regset regs;   /* the general registers known (for a switch x86 gives no bx,
			       * r12-r15: all ones, left unknown) */
	/* the bytes the kernel could copy from sp on (its dyn_size), in one piece — or two, when the
	 * record wraps around its ring's end: stack, then more */
	const uint8_t *stack, *more;
	size_t stack_len, more_len;
};

enum switch_record_kind {
	SWITCH_RECORD_SAMPLE,  /* decoded into *out */
	SWITCH_RECORD_OTHER,   /* a well-formed record of another type (lost, throttle, …) */
	SWITCH_RECORD_BAD,     /* not a record of this layout: sizes that do not add up */
};

/* Decode the record at buf (its header's size, at most len). */
enum switch_record_kind switch_record_decode(const uint8_t *buf, size_t len, struct switch_record *out);

/* A perf ring's data pages written backward (perf_event_attr.write_backward, mapped read-only:
 * the kernel overwrites the oldest records): data_head is where the newest record starts, at
 * head & (size - 1); one that reaches the end continues at the start. */
struct switch_ring_view {
	const uint8_t *data;
	uint64_t size; /* a power of two */
};

/* The newest sample: the record at head, or the first sample after the other records there (the
 * kernel writes the count of the records a shut ring dropped, PERF_RECORD_LOST, in front of the
 * first sample it writes after it is opened), decoded in place into *out; SWITCH_RECORD_BAD also
 * when nothing was written yet. */
enum { SWITCH_RECORDS_BEFORE_SAMPLE = 2 };
enum switch_record_kind switch_ring_newest(const struct switch_ring_view *v, uint64_t head,
					   struct switch_record *out);

#endif
