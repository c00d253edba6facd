/* output_name.h — the file names of --period runs and how a profile reaches its file: -o may hold
 * strftime fields (the period's start, local time) and %n (the period's sequence number, from 1),
 * and every file is written under a temporary name in its directory and renamed into place, so
 * that a reader (a shipper watching the directory) never sees half a profile. */
#ifndef V8WALK_OUTPUT_NAME_H
#define V8WALK_OUTPUT_NAME_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct output_fields {
	unsigned long seq; /* %n */
	time_t start;      /* the strftime fields */
};

/* Does the name hold a field (%n or a strftime conversion; %% is a literal '%')? */
bool output_name_has_fields(const char *tmpl);
/* Expand the fields into out[cap]; false when the result is empty or does not fit. */
bool output_name_expand(const char *tmpl, const struct output_fields *f, char *out, size_t cap);

/* An output file being written: `f` writes to a temporary file beside `path` when path is a
 * regular file or does not exist yet (anything else — /dev/stdout, a FIFO — is written in
 * place). */
struct atomic_file {
	FILE *f;
	char path[4096];
	char tmp[4096]; /* "" when written in place */
};
/* Open; false with errno set. */
bool atomic_file_open(struct atomic_file *af, const char *path);
/* Close, and on success (ok and a clean close) rename into place; otherwise remove the temporary
 * file. Returns 0, or -1 with errno set. */
int atomic_file_close(struct atomic_file *af, bool ok);

#endif
