/* json.h — JSON string output, escaped (quotes, backslashes, control characters); bytes that
 * are not UTF-8 become U+FFFD, so the output is valid JSON whatever the name held. */
#ifndef V8WALK_JSON_H
#define V8WALK_JSON_H

#include <stdio.h>

void json_string(FILE *out, const char *s);

#endif
