/* writers.h — the output formats, each a writer over the aggregated profile (profile.h), and
 * the table that names them: --format NAME, or the extension of -o FILE. */
#ifndef V8WALK_WRITERS_H
#define V8WALK_WRITERS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../util/strbuf.h"
#include "profile.h"

struct write_opts {
	double min_percent; /* tree: fold subtrees below this share */
	const char *thread; /* cpuprofile: the thread to write (tid or role; NULL = main) */
	uint32_t svg_width; /* svg: image width in pixels (0 = 1200) */
	/* svg: a differential flame graph (FlameGraph's difffolded idea): widths are this profile's,
	 * each frame red where its share of the samples grew against `baseline`, blue where it
	 * shrank (NULL = the usual palette) */
	const struct profile *baseline;
};

typedef int (*profile_write_fn)(const struct profile *p, const struct write_opts *wo, FILE *out);

struct profile_writer {
	const char *name;
	const char *extensions[3]; /* matched at the end of the output file's name */
	profile_write_fn write;
	const char *about;
};

/* text call tree: `COUNT PERCENT FRAME`, indented by depth, children by count */
int write_tree(const struct profile *p, const struct write_opts *wo, FILE *out);
/* FlameGraph folded stacks: one line per distinct stack, `root;…;leaf COUNT` */
int write_folded(const struct profile *p, const struct write_opts *wo, FILE *out);
/* a self-contained interactive SVG flame graph */
int write_svg(const struct profile *p, const struct write_opts *wo, FILE *out);
/* speedscope's file format: one sampled profile per thread, in time order */
int write_speedscope(const struct profile *p, const struct write_opts *wo, FILE *out);
/* Chrome DevTools' Profiler.Profile (.cpuprofile) of one thread */
int write_cpuprofile(const struct profile *p, const struct write_opts *wo, FILE *out);
/* pprof: a gzipped perftools.profiles.Profile */
int write_pprof(const struct profile *p, const struct write_opts *wo, FILE *out);

/* Every format, in the order --help lists them. */
const struct profile_writer *profile_writers(size_t *n);
const struct profile_writer *profile_writer_named(const char *name);
/* The writer whose extension ends `path`, or NULL. */
const struct profile_writer *profile_writer_for_path(const char *path);
/* "tree, folded, …" for messages. */
void profile_writer_names(struct strbuf *out);

#endif
