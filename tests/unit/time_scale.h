/* time_scale.h — how far a unit test's timing bound stretches: 1 on the machine itself, or
 * V8WALK_TEST_TIME_SCALE where code runs many times slower than on real hardware (an emulated
 * arm64 machine: scripts/arm64-guest.sh sets it). The bound still separates the intended cost from
 * the one it guards against (n log n from quadratic: seconds from hours there). */
#ifndef V8WALK_TEST_TIME_SCALE_H
#define V8WALK_TEST_TIME_SCALE_H

#include <stdlib.h>

static inline double test_time_scale(void)
{
	const char *s = getenv("V8WALK_TEST_TIME_SCALE");
	double v = s ? strtod(s, NULL) : 1.0;
	return v > 1.0 ? v : 1.0;
}

#endif
