/* service_name.h — the service a node process belongs to, for the `service` column: its own
 * V8WALK_SERVICE environment variable when set; otherwise, with --label service=auto, the `name`
 * of the nearest package.json above its main script, else the script's file name without its
 * extension; otherwise the --label service=NAME given (or "" when none). Everything is read from
 * /proc/PID as hostile input: bounded reads, files resolved inside the process's root, names
 * refused when they hold control characters or exceed SERVICE_NAME_MAX bytes. */
#ifndef V8WALK_SERVICE_NAME_H
#define V8WALK_SERVICE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../util/strbuf.h"

enum { SERVICE_NAME_MAX = 128 };

/* `spec`: NULL (no service label), "auto", or a fixed name. The result replaces *out. */
void service_name_of(pid_t pid, const char *spec, struct strbuf *out);

/* Pure parts. The top-level "name" of a package.json text (false: none, or not a plain string
 * without escapes and control characters). */
bool package_json_name(const char *text, size_t len, struct strbuf *out);
/* The value of NAME= in a NUL-separated environment block (false: absent or not a valid name). */
bool environ_value(const char *block, size_t len, const char *name, struct strbuf *out);
/* The main script among node's arguments (argv NUL-separated, argv[0] first): the first
 * argument after argv[0] that is not an option; false for `node -e`, `node -p` and the REPL. */
bool main_script_of(const char *argv, size_t len, struct strbuf *out);

#endif
