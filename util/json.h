/* json.h — JSON string output, escaped (quotes, backslashes, control characters). */
#ifndef V8WALK_JSON_H
#define V8WALK_JSON_H

#include <stdio.h>

void json_string(FILE *out, const char *s);

#endif
