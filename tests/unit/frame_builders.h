/* frame_builders.h — frames for the unit tests of the aggregation and its consumers (writers,
 * top's table): a native frame and a JavaScript frame, their names interned in the test's table. */
#ifndef V8WALK_TEST_FRAME_BUILDERS_H
#define V8WALK_TEST_FRAME_BUILDERS_H

#include "../../util/intern.h"
#include "../../walker/frame.h"

/* FK_NATIVE named `name`, everything else zero */
struct frame fb_native(struct intern *strings, const char *name);
/* FK_JS `name` in `file` at `line`, defined at `def_line` */
struct frame fb_js(struct intern *strings, const char *name, const char *file, int line, int def_line);

#endif
