/* frame_builders.c — see frame_builders.h. */
#include "frame_builders.h"

#include <string.h>

struct frame fb_native(struct intern *strings, const char *name)
{
	struct frame f;
	memset(&f, 0, sizeof(f));
	f.kind = FK_NATIVE;
	f.name = intern_str(strings, name);
	return f;
}

struct frame fb_js(struct intern *strings, const char *name, const char *file, int line, int def_line)
{
	struct frame f;
	memset(&f, 0, sizeof(f));
	f.kind = FK_JS;
	f.name = intern_str(strings, name);
	f.file = intern_str(strings, file);
	f.line = line;
	f.def_line = def_line;
	return f;
}
