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

/* Is f (a named native frame) one of the scopes in which V8's VM state is GC: the collector's
 * entry, or a function that marks or sweeps on the collector's behalf outside a collection (an
 * incremental-marking step on allocation, the marking and young-generation tasks; gc_frames.c
 * names them)? V8's profiler charges every sample taken in that state to (garbage collector)
 * (tick-sample.cc GetStackSample; symbolizer.cc EntryForVMState): --v8-self does. */
bool frame_in_gc_state(const struct intern *strings, const struct frame *f);

/* Is any of the n frames the collector's entry? */
bool frames_in_gc(const struct intern *strings, const struct frame *frames, int n);

#endif
