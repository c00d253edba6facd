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

bool frames_in_gc(const struct intern *strings, const struct frame *frames, int n)
{
	for (int i = 0; i < n; i++)
		if (frame_is_gc_entry(strings, &frames[i]))
			return true;
	return false;
}
