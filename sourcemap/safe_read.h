/* safe_read.h — read a source map file from the target's filesystem: opened as util/safe_open.h
 * opens every file a target names (resolved inside a root directory — /proc/PID/root for a live
 * process, "/" for a core's mapped filesystem — so that no path or symlink leads out of it, the
 * last component not a symlink, a regular file only, never blocking), and no larger than a
 * bound. */
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

/* root: a directory path ("" = "/"); path: absolute inside it. Appends the content to out; on
 * failure *why is safe_open's reason ("no such file", "it is a symbolic link", "it is a FIFO, not
 * a regular file", …) or the bound's. */
enum sm_read_result sm_read_file(const char *root, const char *path, size_t max_bytes,
				 struct strbuf *out, const char **why);

#endif
