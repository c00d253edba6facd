/* locate.h — where a script's source map is, as Node finds it: the last `//# sourceMappingURL=`
 * (or `/ *#` without the space, `//@`) comment of the source, its URL resolved against the script's own URL or path;
 * and the map's sources resolved against the map's location (sourceRoot already prepended). */
#ifndef V8WALK_SM_LOCATE_H
#define V8WALK_SM_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/strbuf.h"

/* The URL of the last sourceMappingURL comment in text[0..len) that ends after its URL (only spaces
 * follow it on its line, as V8's scanner requires: not the same text inside a string of code);
 * false when there is none. */
bool sm_find_comment(const char *text, size_t len, const char **url, size_t *ulen);

enum sm_where {
	SM_AT_NONE,   /* cannot be resolved (unsupported scheme, no base); *why says so */
	SM_AT_INLINE, /* a data: URL: the map is the URL itself */
	SM_AT_FILE,   /* an absolute path in the target's filesystem (written to path) */
};

/* Resolve the comment's URL against the script's name (a path or a file:// URL). */
enum sm_where sm_resolve_map_url(const char *script_name, const char *url, size_t ulen,
				 struct strbuf *path, const char **why);
/* The file a map's source names, as Node prints it: an absolute path for file sources (relative
 * ones resolved against base, the map's path or, for inline maps, the script's path), the source
 * as written for other URLs (webpack://…). */
void sm_resolve_source(const char *base_path, const char *source, struct strbuf *out);
/* The path of a script name: "/x" → "/x", "file:///x" → "/x"; NULL for anything else. */
bool sm_script_path(const char *script_name, struct strbuf *path);

#endif
