/* stall_class.h — what a sample of a blocked event loop spent its time on, from its frames: the
 * garbage collector, JavaScript itself (a script's function innermost), a builtin of V8 that a
 * script called (JSON, RegExp, a runtime function: every frame above the script's innermost frame
 * is V8's, its JS builtins without a script included), or a synchronous native call (node's fs,
 * crypto, zlib, a native addon, a system call: a frame above it is not V8's). For the last two,
 * the frame that names it: the builtin the script called (past V8's C++ entry trampoline), or the
 * native function nearest the JavaScript that called it. */
#ifndef V8WALK_STALL_CLASS_H
#define V8WALK_STALL_CLASS_H

#include "../util/intern.h"
#include "frame.h"

enum stall_class {
	STALL_JS,
	STALL_GC,
	STALL_NATIVE,
	STALL_BUILTIN,
	STALL_CLASSES,
};

/* "js", "gc", "native", "builtin" */
const char *stall_class_name(enum stall_class c);

/* The class of a sample's frames (innermost first); *named is the index of the frame that names a
 * native call or a builtin (-1 for the rest, or when none has a name). */
enum stall_class stall_class_of(const struct intern *strings, const struct frame *f, int n,
				int *named);

#endif
