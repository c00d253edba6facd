/* version.c — the release and commit the build passes in (version.h). */
#include "version.h"

#ifndef V8WALK_RELEASE
#error "the build defines V8WALK_RELEASE (from the VERSION file)"
#endif
#ifndef V8WALK_COMMIT
#define V8WALK_COMMIT "unknown"
#endif

const char v8walk_release[] = V8WALK_RELEASE;
const char v8walk_commit[] = V8WALK_COMMIT;
