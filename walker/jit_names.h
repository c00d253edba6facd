/* jit_names.h — naming, after a walk, the JIT frames V8's heap could not name, from the target's
 * perf map (symtab/perfmap.h): "[unknown] (JIT code)" frames, and frames in JIT code known only
 * by their frame type (<IrregexpFrame>, <StubFrame>: the map says which regexp or stub). A frame
 * keeps its kind; only its name changes. */
#ifndef V8WALK_JIT_NAMES_H
#define V8WALK_JIT_NAMES_H

#include "stackwalk.h"

void name_jit_frames_from_perfmap(struct stackwalk *sw, struct frame *f, int n);

#endif
