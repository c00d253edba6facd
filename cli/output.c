/* output.c — opening and closing the output file, and the common error exit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "modes.h"

int fail_msg(const char *msg)
{
	fprintf(stderr, "v8walk: %s\n", msg);
	return 1;
}

FILE *open_output(const struct options *o)
{
	if (!o->output)
		return stdout;
	FILE *out = fopen(o->output, "we");
	if (!out)
		fprintf(stderr, "v8walk: cannot write %s: %s\n", o->output, strerror(errno));
	return out;
}

int close_output(const struct options *o, FILE *out, int write_rc)
{
	int rc = write_rc;
	if (o->output) {
		if (fclose(out) != 0)
			rc = -1;
	} else if (fflush(out) != 0) {
		rc = -1;
	}
	if (rc) {
		fprintf(stderr, "v8walk: writing the output failed: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
