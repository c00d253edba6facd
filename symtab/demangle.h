/* demangle.h — C++ symbol demangling (libiberty), without parameter lists unless asked. */
#ifndef V8WALK_DEMANGLE_H
#define V8WALK_DEMANGLE_H

#include <stdbool.h>

/* Returns a malloc'd demangled name, or a copy of `name` when it is not a mangled C++ name. */
char *demangle(const char *name, bool with_params);

#endif
