/* config_file.h — a host configuration file read whole (/etc/hosts, /etc/passwd, /etc/group):
 * opened with safe_open (a regular file only, never blocking on a FIFO), at most max bytes. The
 * text is then parsed as hostile input by its reader. */
#ifndef V8WALK_CONFIG_FILE_H
#define V8WALK_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* Append the file's bytes to out; false when it cannot be opened or is larger than max. */
bool config_file_read(const char *path, size_t max, struct strbuf *out);

#endif
