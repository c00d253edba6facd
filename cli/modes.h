/* modes.h — what v8walk does, one function per mode; each returns the process exit code. */
#ifndef V8WALK_MODES_H
#define V8WALK_MODES_H

#include <stdio.h>

#include "options.h"

int mode_record(const struct options *o);
int mode_dump(const struct options *o);
/* --core FILE: every thread's stack from a core file (text or JSON), or --version-info for it.
 * Exits 0, 1 (nothing could be shown) or 3 (stacks shown, with warnings about the input). */
int mode_core(const struct options *o);
int mode_version_info(const struct options *o);

/* Shared: a one-line error on stderr, exit code 1. */
int fail_msg(const char *msg);
/* The file for -o (stdout when none); NULL after printing why it cannot be opened. */
FILE *open_output(const struct options *o);
/* Flush/close it; returns 0 or 1 (after printing why). */
int close_output(const struct options *o, FILE *out, int write_rc);

#endif
