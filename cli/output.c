/* output.c — opening and closing the output file, writing the profile, and the common error
 * exit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"
#include "../util/clock.h"

#include "modes.h"
#include "output_name.h"

int fail_msg(const char *msg)
{
	fprintf_text(stderr, "v8walk: %s\n", msg);
	return EXIT_ERROR;
}

int fail_access(const char *msg, bool refused)
{
	fail_msg(msg);
	return refused ? EXIT_PERMISSION : EXIT_ERROR;
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

/* One file (NULL: stdout) in one format; a file is written under a temporary name and renamed. */
static int write_one(const struct options *o, const char *path, const struct profile_writer *w,
		     const struct profile *p)
{
	struct write_opts wo = {.min_percent = o->min_percent, .thread = o->thread,
				.baseline = o->svg_baseline};
	uint64_t t0 = now_ns();
	int rc;
	if (!path) {
		rc = w->write(p, &wo, stdout);
		rc = close_output(o, stdout, rc);
	} else {
		struct atomic_file af;
		if (!atomic_file_open(&af, path)) {
			fprintf_text(stderr, "v8walk: cannot write %s: %s\n", path, strerror(errno));
			return EXIT_ERROR;
		}
		rc = w->write(p, &wo, af.f);
		if (atomic_file_close(&af, rc == 0) != 0) {
			fprintf_text(stderr, "v8walk: writing %s failed: %s\n", path, strerror(errno));
			rc = EXIT_ERROR;
		}
	}
	if (getenv("V8WALK_WRITE_TIMES"))
		fprintf_text(stderr, "v8walk: wrote %s (%s) in %.1f ms; %zu bytes per sample in memory\n",
			path ? path : "stdout", w->name, (double)(now_ns() - t0) / 1e6,
			p->samples ? profile_bytes(p) / p->samples : 0);
	return rc;
}

/* A -o name, expanded with the period's fields (--period), or as given. */
static int write_named(const struct options *o, const char *tmpl, const struct profile_writer *w,
		       const struct profile *p, const struct output_fields *f)
{
	if (!tmpl || !f)
		return write_one(o, tmpl, w, p);
	char path[4096];
	if (!output_name_expand(tmpl, f, path, sizeof(path))) {
		fprintf(stderr, "v8walk: -o %s expands to an empty or too long file name\n", tmpl);
		return 1;
	}
	return write_one(o, path, w, p);
}

int write_profile_fields(const struct options *o, const struct profile *p,
			 const struct output_fields *f)
{
	int rc = write_named(o, o->output, o->writer, p, f);
	for (size_t i = 0; i < o->nmore; i++)
		rc |= write_named(o, o->more_outputs[i], o->more_writers[i], p, f);
	return rc;
}

int write_profile(const struct options *o, const struct profile *p)
{
	return write_profile_fields(o, p, NULL);
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
	m->stalls_ms = o->stalls_ms;
	m->v8_self = o->v8_self;
}

enum line_mode line_mode_of(const struct options *o)
{
	return o->no_lines ? LINES_NONE : o->function_lines ? LINES_FUNCTION : LINES_CURRENT;
}

struct target_opts target_opts_of(const struct options *o)
{
	return (struct target_opts){.force_version = o->have_force_version ? &o->force_version : NULL,
				    .full_native_names = o->full_native_names,
				    .v8_self = o->v8_self,
				    .no_source_maps = o->no_source_maps,
				    .async = o->async,
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
