/* write_speedscope.c — placeholder until written. */
#include "writers.h"

int write_speedscope(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	(void)p;
	(void)wo;
	(void)out;
	return -1;
}
