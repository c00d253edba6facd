/* switch_record.h — one PERF_RECORD_SAMPLE of the layout ptrace/switch_copy.c asks the kernel for
 * (PERF_SAMPLE_TID | TIME | REGS_USER | STACK_USER: the user's general registers and the stack
 * above sp, as the thread was when it switched out), decoded from a buffer. Its stack bytes are
 * the target's and its sizes are checked against the record's own: nothing in it is trusted. */
#ifndef V8WALK_SWITCH_RECORD_H
#define V8WALK_SWITCH_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../mem/regs.h"

/* The user registers the record carries, by perf's x86-64 numbers (asm/perf_regs.h): ax bx cx dx
 * si di bp sp ip flags cs ss (0-11) and r8-r15 (16-23); the segment registers 12-15 are not
 * there for a 64-bit task. The kernel writes them by bit, lowest first. */
#define SWITCH_REGS_MASK (0xfffULL | (0xffULL << 16))
enum { SWITCH_NREGS = 20 };

struct switch_record {
	uint32_t pid, tid;
	uint64_t time_ns;     /* the event's clock (CLOCK_MONOTONIC, as asked) */
	bool has_regs;        /* false: the kernel had no user registers (a kernel thread) */
	struct regset regs;   /* the general registers (no fs_base: not in a record) */
	const uint8_t *stack; /* into the buffer: the bytes copied from sp on */
	size_t stack_len;     /* how many the kernel could copy (its dyn_size) */
};

enum switch_record_kind {
	SWITCH_RECORD_SAMPLE,  /* decoded into *out */
	SWITCH_RECORD_OTHER,   /* a well-formed record of another type (lost, throttle, …) */
	SWITCH_RECORD_BAD,     /* not a record of this layout: sizes that do not add up */
};

/* The size of the record starting at buf (its header's), or 0 when len cannot hold a header or
 * the header's size is smaller than a header. */
size_t switch_record_size(const uint8_t *buf, size_t len);
/* Decode the record of len bytes at buf (len = its header's size). */
enum switch_record_kind switch_record_decode(const uint8_t *buf, size_t len, struct switch_record *out);

/* A perf ring's data pages as the kernel fills them: records at positions that grow without end,
 * each at pos & (size - 1), one that wraps around the end continuing at the start. */
struct switch_ring_view {
	const uint8_t *data;
	uint64_t size;    /* a power of two */
	uint8_t *scratch; /* SWITCH_RECORD_MAX bytes: a record that wraps is made contiguous here */
};
enum { SWITCH_RECORD_MAX = 1 << 16 }; /* a record's size is 16 bits */

/* The records in [tail, head): how many samples there were, and in *out the newest that want
 * accepted (*found; its stack may be in the scratch: valid until the next scan). The scan ends
 * at the first header that is not a record's. */
size_t switch_ring_scan(const struct switch_ring_view *v, uint64_t tail, uint64_t head,
			bool (*want)(const struct switch_record *s, void *ctx), void *ctx,
			struct switch_record *out, bool *found);

#endif
