/* output.c — opening and closing the output file, writing the profile, and the common error
 * exit. */
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

int write_profile(const struct options *o, const struct profile *p)
{
	FILE *out = open_output(o);
	if (!out)
		return 1;
	struct write_opts wo = {.min_percent = o->min_percent, .thread = o->thread};
	int w = o->writer->write(p, &wo, out);
	return close_output(o, out, w);
}

void profile_meta_fill(const struct options *o, const struct v8_runtime *rt, uint64_t start_ns,
		       uint64_t end_ns, struct profile_meta *m)
{
	struct strbuf s;
	sb_init(&s);
	if (o->command) {
		for (char **a = o->command; *a; a++)
			sb_printf(&s, "%s%s", a == o->command ? "" : " ", *a);
	} else if (o->all_node) {
		sb_add(&s, "every node process");
	} else {
		sb_add(&s, o->npids > 1 ? "pids" : "pid");
		for (size_t i = 0; i < o->npids; i++)
			sb_printf(&s, " %d", (int)o->pids[i]);
	}
	snprintf(m->target, sizeof(m->target), "%s", s.s);
	sb_reset(&s);
	if (rt)
		v8_runtime_describe(rt, &s);
	snprintf(m->runtime, sizeof(m->runtime), "%s", s.s);
	sb_free(&s);
	m->rate_hz = o->rate_hz;
	m->start_ns = start_ns;
	m->end_ns = end_ns;
	m->idle = o->idle;
}

enum line_mode line_mode_of(const struct options *o)
{
	return o->no_lines ? LINES_NONE : o->function_lines ? LINES_FUNCTION : LINES_CURRENT;
}
