/* gc_frames.h — whether a mixed stack is inside V8's garbage collector: one of its frames is the
 * collector's entry (Heap::CollectGarbage, or Heap::PerformGarbageCollection under it), as V8's
 * own profiler puts such a sample in its (garbage collector) bucket. */
#ifndef V8WALK_GC_FRAMES_H
#define V8WALK_GC_FRAMES_H

#include <stdbool.h>

#include "../util/intern.h"
#include "frame.h"

/* Is f (a named native frame) the collector's entry? */
bool frame_is_gc_entry(const struct intern *strings, const struct frame *f);

/* Is any of the n frames the collector's entry? */
bool frames_in_gc(const struct intern *strings, const struct frame *frames, int n);

#endif
