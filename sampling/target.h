/* target.h — opening a live node process for any mode: existence and permission checks, its
 * address space, and its V8 (with the one-line error a user gets when any of it fails). */
#ifndef V8WALK_TARGET_H
#define V8WALK_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "../symtab/addrspace.h"
#include "../util/strbuf.h"
#include "../v8/runtime.h"

struct live_target {
	pid_t pid;
	char comm[64];
	struct addrspace as;
	struct v8_runtime rt;
	bool have_rt;
	bool refused; /* opening failed because the kernel refused access (EXIT_PERMISSION) */
};

/* What opening and walking a live target takes from the command line. */
struct target_opts {
	const struct v8_version *force_version; /* --force-v8-version, or NULL: the target's own */
	bool full_native_names;                 /* --full-names: C++ parameter lists */
	bool v8_self;                           /* --v8-self (walker/stackwalk.h) */
	bool no_source_maps;                    /* --no-source-maps */
	bool async;                             /* --async (walker/async_frames.h) */
	bool quiet;                             /* -q: no summary lines */
	struct image_share *images;             /* ELF images shared between targets, or NULL */
};

/* Returns false with a one-line reason in *msg (the target is not touched on failure). */
bool live_target_open(struct live_target *t, pid_t pid, const struct target_opts *to,
		      struct strbuf *msg);
void live_target_close(struct live_target *t);

#endif
