/* version.h — v8walk's own release (the VERSION file) and the commit it was built from (git's
 * short hash, "-dirty" when the tree had changes; "unknown" outside git), both given by the
 * build (GNUmakefile compiles them into version.o alone). */
#ifndef V8WALK_UTIL_VERSION_H
#define V8WALK_UTIL_VERSION_H

extern const char v8walk_release[]; /* "0.2.0" */
extern const char v8walk_commit[];  /* "abc1234", "abc1234-dirty" or "unknown" */

#endif
