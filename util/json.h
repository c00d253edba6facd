/* json.h — a NUL-terminated string as a quoted JSON string, escaped as util/text_escape.h does
 * (quotes, backslashes, controls; bytes that are not UTF-8 become U+FFFD), so the output is valid
 * JSON whatever the name held. Counted strings: fput_json_string. */
#ifndef V8WALK_JSON_H
#define V8WALK_JSON_H

#include <stdio.h>

void json_string(FILE *out, const char *s);

#endif
