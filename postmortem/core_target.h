/* core_target.h — a core file opened for walking: the core, its address space, its memory source
 * and its V8, with the checks a postmortem user needs — the executable found from the core
 * (or --exe) and refused when its build-id differs from the one that crashed, libraries whose
 * build-id differs, a truncated core, a process without V8. Hard errors stop; the rest become
 * warnings that the output states next to the stacks. */
#ifndef V8WALK_CORE_TARGET_H
#define V8WALK_CORE_TARGET_H

#include <stdbool.h>

#include "../symtab/addrspace.h"
#include "../util/strbuf.h"
#include "../v8/runtime.h"
#include "../v8/version.h"
#include "core_file.h"
#include "memsrc_core.h"

struct core_target {
	struct core_file cf;
	struct addrspace as;
	struct memsrc_core mem;
	struct v8_runtime rt;
	bool have_rt;
	char *exe_path;         /* the executable as the core names it */
	char **warnings;        /* one line each, without "warning: " */
	size_t nwarnings;
};

struct core_target_opts {
	const char *core_path;
	const char *exe;                 /* --exe, or NULL to use the core's own path */
	const struct v8_version *force;  /* --force-v8-version, or NULL */
};

/* Returns false with a one-line reason in *msg; nothing to close then. */
bool core_target_open(struct core_target *t, const struct core_target_opts *o, struct strbuf *msg);
void core_target_close(struct core_target *t);
/* Add a warning line (printf-style). */
void core_target_warn(struct core_target *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
