/* data_url.h — an inline source map: `data:application/json[;charset=…][;base64],DATA`, decoded
 * as Node decodes it (base64 when the last parameter is "base64", else the text as is). */
#ifndef V8WALK_SM_DATA_URL_H
#define V8WALK_SM_DATA_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/strbuf.h"

/* url[0..len) starts with "data:"; appends the map's JSON to out, or false with *why. */
bool data_url_decode(const char *url, size_t len, size_t max_bytes, struct strbuf *out,
		     const char **why);

#endif
