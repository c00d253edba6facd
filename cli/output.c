/* output.c — opening and closing the output file, writing the profile, and the common error
 * exit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/text_escape.h"
#include "modes.h"
#include "write_folded.h"
#include "write_tree.h"

int fail_msg(const char *msg)
{
	fprintf_text(stderr, "v8walk: %s\n", msg);
	return EXIT_ERROR;
}

FILE *open_output(const struct options *o)
{
	if (!o->output)
		return stdout;
	FILE *out = fopen(o->output, "we");
	if (!out)
		fprintf_text(stderr, "v8walk: cannot write %s: %s\n", o->output, strerror(errno));
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
		fprintf_text(stderr, "v8walk: writing the output failed: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

int write_profile(const struct options *o, const struct profile *p)
{
	FILE *out = open_output(o);
	if (!out)
		return EXIT_ERROR;
	int w = o->format == OUT_FOLDED ? write_folded(p, out) : write_tree(p, o->min_percent, out);
	return close_output(o, out, w);
}

enum line_mode line_mode_of(const struct options *o)
{
	return o->no_lines ? LINES_NONE : o->function_lines ? LINES_FUNCTION : LINES_CURRENT;
}

struct target_opts target_opts_of(const struct options *o)
{
	return (struct target_opts){.force_version = o->have_force_version ? &o->force_version : NULL,
				    .full_native_names = o->full_native_names};
}
