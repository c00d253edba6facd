/* safe_open.h — the one way v8walk opens a file that a target or a core names (ELF modules, perf
 * maps, a core's executable): never blocks (O_NONBLOCK: a FIFO cannot hang it), never follows a
 * symlink of the last component unless asked, resolves a live target's paths inside its own root
 * (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS relative to /proc/PID/root, so no symlink leads
 * out of it; where the kernel lacks openat2, O_NOFOLLOW and the identity check below), and then
 * checks the open descriptor itself — no stat-then-open race: a regular file, the device and
 * inode the maps named (when known), a size bound. */
#ifndef V8WALK_SAFE_OPEN_H
#define V8WALK_SAFE_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct file_expect {
	const char *root;  /* "/proc/PID/root": resolve path inside it; NULL or "" = as is */
	uint64_t dev, ino; /* the identity the maps give (0 = unknown) */
	uint64_t max_size; /* refuse larger files (0 = no bound) */
	bool follow;       /* follow a symlink in the last component (user-given paths, map_files) */
};

/* Open path for reading as *ex says; returns the descriptor (O_CLOEXEC), or -1 with *err set to
 * a static reason ("it is a FIFO, not a regular file", "it is a symbolic link", …). *st gets the
 * descriptor's fstat. */
int safe_open(const char *path, const struct file_expect *ex, struct stat *st, const char **err);

#endif
