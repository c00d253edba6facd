/* version_string.h — v8walk's own version. */
#ifndef V8WALK_VERSION_STRING_H
#define V8WALK_VERSION_STRING_H

#define V8WALK_VERSION "0.1.0"

#endif
