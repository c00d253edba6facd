/* histogram.h — durations counted in fixed buckets, so that quantiles of a run of any length cost
 * constant memory: 1 µs buckets up to 1 ms, then 32 buckets per doubling (about 2% wide) up to
 * 2^40 ns; the exact maximum is kept apart. */
#ifndef V8WALK_HISTOGRAM_H
#define V8WALK_HISTOGRAM_H

#include <stdint.h>

enum { HIST_LINEAR = 1024, HIST_SUB = 32, HIST_OCTAVES = 20,
       HIST_BUCKETS = HIST_LINEAR + HIST_SUB * HIST_OCTAVES };

struct histogram {
	uint32_t count[HIST_BUCKETS];
	uint64_t n;
	uint64_t max_ns;
};

void histogram_add(struct histogram *h, uint64_t ns);
/* The q-quantile (0..1), as the upper bound of its bucket (exact below 1 ms); 0 when empty. */
uint64_t histogram_quantile(const struct histogram *h, double q);

#endif
