/* fuzz_switch_record.c — libFuzzer harness: a perf ring's data as ptrace/switch_copy.c reads it
 * after a thread's switch into its stop (ptrace/switch_record.c): the input's first byte sets where
 * the records start in a ring of the input's size (rounded up to a power of two), so that records
 * wrap around the end; every record is decoded and the newest sample taken, its stack read whole. */
#include <stdlib.h>
#include <string.h>

#include "../ptrace/switch_record.h"

static volatile uint8_t sink;

static bool any_sample(const struct switch_record *s, void *ctx)
{
	(void)ctx;
	return s->has_regs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t scratch[SWITCH_RECORD_MAX];
	if (size < 1 || size > (1 << 18))
		return 0;
	uint64_t ring_size = 64;
	while (ring_size < size - 1)
		ring_size <<= 1;
	uint8_t *ring = calloc(1, ring_size);
	uint64_t tail = (uint64_t)data[0] * 977 + ring_size * 3;
	for (size_t i = 1; i < size; i++)
		ring[(tail + i - 1) & (ring_size - 1)] = data[i];
	struct switch_ring_view v = {.data = ring, .size = ring_size, .scratch = scratch};
	struct switch_record s;
	bool found;
	switch_ring_scan(&v, tail, tail + size - 1, any_sample, NULL, &s, &found);
	if (found) /* every byte the record says it holds is read (ASan: within the ring or scratch) */
		for (size_t i = 0; i < s.stack_len; i++)
			sink ^= s.stack[i];
	free(ring);
	return 0;
}
