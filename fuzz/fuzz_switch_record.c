/* fuzz_switch_record.c — libFuzzer harness: a perf ring's data as ptrace/switch_copy.c reads it
 * after a thread's switch into its stop (ptrace/switch_record.c): the input's first byte sets where
 * the newest record starts (data_head) in a ring of the input's size (rounded up to a power of
 * two), so that it may wrap around the end; the record is decoded and its stack read whole. The
 * same ring is read as a thread's context-switch records (ptrace/run_ring.c) at heads on and off
 * a record's alignment. */
#include <stdlib.h>
#include <string.h>

#include "../ptrace/run_ring.h"
#include "../ptrace/switch_record.h"

static volatile uint8_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 18))
		return 0;
	uint64_t ring_size = 64;
	while (ring_size < size - 1)
		ring_size <<= 1;
	uint8_t *ring = calloc(1, ring_size);
	uint64_t tail = (uint64_t)data[0] * 977 + ring_size * 3;
	for (size_t i = 1; i < size; i++)
		ring[(tail + i - 1) & (ring_size - 1)] = data[i];
	struct switch_ring_view v = {.data = ring, .size = ring_size};
	struct switch_record s;
	bool found = switch_ring_newest(&v, tail, &s) == SWITCH_RECORD_SAMPLE;
	if (found) { /* every byte the record says it holds is read (ASan: within the ring) */
		for (size_t i = 0; i < s.stack_len; i++)
			sink ^= s.stack[i];
		for (size_t i = 0; i < s.more_len; i++)
			sink ^= s.more[i];
	}
	for (uint64_t head = tail; head < tail + 9; head += 3) /* within the ring (ASan) or refused */
		sink ^= (uint8_t)run_ring_decode(ring, ring_size, head, tail, data[0] & 1);
	free(ring);
	return 0;
}
