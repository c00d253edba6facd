/* output.c — opening and closing the output file, writing the profile, and the common error
 * exit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"
#include "../util/clock.h"

#include "modes.h"

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

/* One file (NULL: stdout) in one format. */
static int write_one(const struct options *o, const char *path, const struct profile_writer *w,
		     const struct profile *p)
{
	struct options one = *o;
	one.output = path;
	FILE *out = open_output(&one);
	if (!out)
		return EXIT_ERROR;
	struct write_opts wo = {.min_percent = o->min_percent, .thread = o->thread};
	uint64_t t0 = now_ns();
	int rc = w->write(p, &wo, out);
	rc = close_output(&one, out, rc);
	if (getenv("V8WALK_WRITE_TIMES"))
		fprintf_text(stderr, "v8walk: wrote %s (%s) in %.1f ms; %zu bytes per sample in memory\n",
			path ? path : "stdout", w->name, (double)(now_ns() - t0) / 1e6,
			p->samples ? profile_bytes(p) / p->samples : 0);
	return rc;
}

int write_profile(const struct options *o, const struct profile *p)
{
	int rc = write_one(o, o->output, o->writer, p);
	for (size_t i = 0; i < o->nmore; i++)
		rc |= write_one(o, o->more_outputs[i], o->more_writers[i], p);
	return rc;
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

struct target_opts target_opts_of(const struct options *o)
{
	return (struct target_opts){.force_version = o->have_force_version ? &o->force_version : NULL,
				    .full_native_names = o->full_native_names,
				    .no_source_maps = o->no_source_maps,
				    .quiet = o->quiet};
}

void profile_add_modules(struct profile *p, pid_t pid, struct addrspace *as)
{
	for (size_t i = 0; i < as->maps.n; i++) {
		const struct mapping *m = &as->maps.v[i];
		int mod = as->map_mod ? as->map_mod[i] : -1;
		if (!(m->prot & MAP_X) || mod < 0 || !m->path)
			continue;
		struct profile_module pm = {.pid = pid, .start = m->start, .limit = m->end,
					    .offset = m->pgoff,
					    .path = intern_str(p->strings, m->path)};
		const struct elf_image *img = as->mods[mod].img;
		if (img)
			elf_image_build_id_hex(img, pm.build_id);
		profile_add_module(p, &pm);
	}
}
