/* safe_read.h — read a source map file from the target's filesystem: resolved inside a root
 * directory (/proc/PID/root for a live process, "/" for a core's mapped filesystem) so that no
 * path or symlink leads out of it, the last component not a symlink, a regular file only, never
 * blocking, and no larger than a bound. (A local helper: the lead unifies it with util/'s.) */
#ifndef V8WALK_SM_SAFE_READ_H
#define V8WALK_SM_SAFE_READ_H

#include <stddef.h>

#include "../util/strbuf.h"

enum sm_read_result {
	SR_OK,
	SR_MISSING,    /* no such file */
	SR_UNREADABLE, /* permissions, not a regular file, a symlink, I/O error */
	SR_TOO_LARGE,
};

/* root: a directory path ("" = "/"); path: absolute inside it. Appends the content to out. */
enum sm_read_result sm_read_file(const char *root, const char *path, size_t max_bytes,
				 struct strbuf *out, const char **why);

#endif
