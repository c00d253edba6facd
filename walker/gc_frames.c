/* gc_frames.c — whether a mixed stack is inside V8's garbage collector (see gc_frames.h). */
#include "gc_frames.h"

#include <string.h>

bool frame_is_gc_entry(const struct intern *strings, const struct frame *f)
{
	if (f->kind != FK_NATIVE || !f->name)
		return false;
	const char *name = intern_get(strings, f->name);
	return strstr(name, "Heap::CollectGarbage") || strstr(name, "Heap::PerformGarbageCollection");
}

/* The functions that put V8 in its VM state GC (a VMState<GC> scope) besides the collector:
 * an incremental-marking step on allocation, V8 11.3's refill of an old space's allocation
 * buffer (it may sweep), the incremental-marking and young-generation tasks the event loop runs */
static const char *const gc_state_scopes[] = {
    "IncrementalMarking::Observer::Step",
    "PagedSpaceBase::RefillLabMain",
    "IncrementalMarkingJob::Task::RunInternal",
    "MinorGCJob::Task::RunInternal",
    "ScavengeJob::Task::RunInternal",
};

bool frame_in_gc_state(const struct intern *strings, const struct frame *f)
{
	if (f->kind != FK_NATIVE || !f->name)
		return false;
	if (frame_is_gc_entry(strings, f))
		return true;
	const char *name = intern_get(strings, f->name);
	for (size_t i = 0; i < sizeof(gc_state_scopes) / sizeof(gc_state_scopes[0]); i++)
		if (strstr(name, gc_state_scopes[i]))
			return true;
	return false;
}

bool frames_in_gc(const struct intern *strings, const struct frame *frames, int n)
{
	for (int i = 0; i < n; i++)
		if (frame_is_gc_entry(strings, &frames[i]))
			return true;
	return false;
}
