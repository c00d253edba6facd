/* test_histogram.c — pause quantiles from fixed buckets: exact below 1 ms, within a bucket's
 * width (about 3%) above, the maximum exact, memory the same whatever the count. */
#include <criterion/criterion.h>

#include "../../util/histogram.h"

Test(histogram, quantiles_exact_below_a_millisecond)
{
	struct histogram h = {0};
	for (uint64_t us = 1; us <= 100; us++)
		histogram_add(&h, us * 1000 + 300);
	cr_assert_eq(h.n, 100);
	cr_assert_eq(histogram_quantile(&h, 0.5) / 1000, 51, "median: the 51st of 100 values (index 50), 51.3 µs");
	cr_assert_eq(histogram_quantile(&h, 0.99) / 1000, 99);
	cr_assert_eq(h.max_ns, 100300);
	cr_assert_eq(histogram_quantile(&h, 1.0), 100300, "the top quantile is the exact maximum");
}

Test(histogram, quantiles_within_a_bucket_above_a_millisecond)
{
	struct histogram h = {0};
	for (int i = 0; i < 1000; i++)
		histogram_add(&h, 30000); /* 30 µs */
	for (int i = 0; i < 20; i++)
		histogram_add(&h, 7300000); /* 7.3 ms */
	uint64_t p99 = histogram_quantile(&h, 0.99);
	cr_assert(p99 >= 7300000 && p99 <= 7300000 * 1.04, "p99 %lu within 4%% of 7.3 ms", (unsigned long)p99);
	cr_assert_eq(histogram_quantile(&h, 0.5) / 1000, 30);
	histogram_add(&h, (uint64_t)1 << 45); /* past the last octave: counted, max exact */
	cr_assert_eq(h.max_ns, (uint64_t)1 << 45);
	cr_assert_eq(histogram_quantile(&h, 0.0) / 1000, 30);
}

Test(histogram, empty_is_zero)
{
	struct histogram h = {0};
	cr_assert_eq(histogram_quantile(&h, 0.5), 0);
}
