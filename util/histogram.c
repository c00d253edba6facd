/* histogram.c — bucketed durations and their quantiles. */
#include "histogram.h"

/* Bucket of a duration: 1 µs wide below HIST_LINEAR µs, then HIST_SUB per doubling. */
static unsigned bucket_of(uint64_t ns)
{
	uint64_t us = ns / 1000;
	if (us < HIST_LINEAR)
		return (unsigned)us;
	unsigned octave = 0;
	while (octave + 1 < HIST_OCTAVES && us >= ((uint64_t)HIST_LINEAR << (octave + 1)))
		octave++;
	uint64_t base = (uint64_t)HIST_LINEAR << octave;
	uint64_t sub = (us - base) * HIST_SUB / base;
	if (sub >= HIST_SUB)
		sub = HIST_SUB - 1;
	return HIST_LINEAR + octave * HIST_SUB + (unsigned)sub;
}

/* The largest duration (ns) a bucket holds. */
static uint64_t bucket_top(unsigned b)
{
	if (b < HIST_LINEAR)
		return (uint64_t)(b + 1) * 1000 - 1;
	unsigned octave = (b - HIST_LINEAR) / HIST_SUB, sub = (b - HIST_LINEAR) % HIST_SUB;
	uint64_t base = (uint64_t)HIST_LINEAR << octave;
	return (base + base * (sub + 1) / HIST_SUB) * 1000 - 1;
}

void histogram_add(struct histogram *h, uint64_t ns)
{
	h->count[bucket_of(ns)]++;
	h->n++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

uint64_t histogram_quantile(const struct histogram *h, double q)
{
	if (!h->n)
		return 0;
	uint64_t want = (uint64_t)(q * (double)(h->n - 1) + 0.5) + 1, seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= want) {
			uint64_t top = bucket_top(b);
			return top < h->max_ns ? top : h->max_ns;
		}
	}
	return h->max_ns;
}
