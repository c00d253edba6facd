/* cpu_burn.c — a control for bench/real_cost.js's throughput pairs: it takes a share of one CPU,
 * in a burst at each tick of a sampler's rate, at the normal scheduling policy, and does nothing
 * else (no stop, no read of the target). Run beside a target with v8walk's measured CPU share, it
 * says how much of v8walk's cost to the target's throughput is only its CPU use on a machine
 * whose CPUs the target fills (2 CPUs here, a target running ~1.5 of them), not its stops.
 *
 *   cpu_burn RATE_HZ PERCENT_OF_ONE_CPU SECONDS
 *
 * Prints one JSON line on stdout: the CPU it used as a percent of one CPU over its run (the
 * field v8walk's summary gives as "v8walk CPU"), and its bursts. SIGINT/SIGTERM end it early.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/clock.h"

struct burn_opts {
	double rate_hz, percent, seconds;
};

static bool parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi))
		return false;
	*out = v;
	return true;
}

static bool parse_args(int argc, char **argv, struct burn_opts *o)
{
	if (argc != 4) {
		fprintf(stderr, "usage: cpu_burn RATE_HZ PERCENT_OF_ONE_CPU SECONDS\n");
		return false;
	}
	if (!parse_number(argv[1], 1, 100000, &o->rate_hz) || !parse_number(argv[2], 0, 100, &o->percent) ||
	    !parse_number(argv[3], 0.01, 86400, &o->seconds)) {
		fprintf(stderr, "cpu_burn: bad arguments (rate 1..100000 Hz, percent 0..100, seconds 0.01..86400)\n");
		return false;
	}
	return true;
}

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

int main(int argc, char **argv)
{
	struct burn_opts o;
	if (!parse_args(argc, argv, &o))
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	uint64_t period = (uint64_t)(1e9 / o.rate_hz);
	/* each burst is CPU time (the process's: it has one thread), not wall time: preempted, it
	 * still takes its whole share */
	uint64_t burst = (uint64_t)((double)period * o.percent / 100.0);
	uint64_t start = now_ns(), end = start + (uint64_t)(o.seconds * 1e9);
	uint64_t cpu0 = own_cpu_ns(), next = start;
	unsigned long bursts = 0;
	while (!stop_asked && next < end) {
		uint64_t until = own_cpu_ns() + burst;
		while (own_cpu_ns() < until)
			;
		bursts++;
		next += period;
		struct timespec ts = {(time_t)(next / 1000000000ULL), (long)(next % 1000000000ULL)};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	double wall = (double)(now_ns() - start) / 1e9;
	double cpu = (double)(own_cpu_ns() - cpu0) / 1e9;
	printf("{\"rateHz\":%g,\"askedPercent\":%g,\"seconds\":%.3f,\"bursts\":%lu,\"cpuPercent\":%.2f}\n", o.rate_hz,
	       o.percent, wall, bursts, wall > 0 ? 100.0 * cpu / wall : 0.0);
	return 0;
}
