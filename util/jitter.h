/* jitter.h — a small xorshift generator for the random intervals the samplers wait, so that
 * what v8walk does (its ticks in ptrace mode, its reads of the eBPF ring in eBPF mode) keeps no
 * fixed phase against anything periodic: the target's own work, or the kernel's sampling timers. */
#ifndef V8WALK_JITTER_H
#define V8WALK_JITTER_H

#include <stdint.h>

struct jitter {
	uint64_t state; /* never 0 */
};

static inline void jitter_seed(struct jitter *j, uint64_t seed)
{
	j->state = seed | 1;
}

/* Uniform in [0, 1). */
static inline double jitter_unit(struct jitter *j)
{
	uint64_t x = j->state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	j->state = x;
	return (double)(x >> 11) / (double)(1ULL << 53);
}

/* Uniform in [interval / 2, 3 * interval / 2): mean `interval`, and a spread of one whole
 * interval, so that the phase against any clock of period `interval` is uniform. */
static inline uint64_t jitter_around(struct jitter *j, uint64_t interval)
{
	return (uint64_t)((double)interval * (0.5 + jitter_unit(j)));
}

#endif
