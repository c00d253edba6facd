/* proc_status.h — one "Key:\tvalue" field of /proc/<who>/status (who: "self", "1234",
 * "1234/task/1235"). */
#ifndef V8WALK_PROC_STATUS_H
#define V8WALK_PROC_STATUS_H

#include <stdbool.h>
#include <stddef.h>

bool proc_status_field(const char *who, const char *key, char *val, size_t cap);

#endif
