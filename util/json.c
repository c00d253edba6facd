/* json.c — JSON strings from NUL-terminated text (the escaping itself is text_escape's). */
#include "json.h"

#include <string.h>

#include "text_escape.h"

void json_string(FILE *out, const char *s)
{
	fput_json_string(out, s, strlen(s));
}
