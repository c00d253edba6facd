/* frame_parse.h — a frame's folded text (as profile/frame_text.h writes it with annotations)
 * back into a frame, so that stacks read from ClickHouse go through v8walk's own aggregation and
 * writers: `NAME (FILE:LINE)_[j]` is JavaScript (`_[i]` inlined), `NAME_[k]` a kernel frame,
 * anything else a native frame named by the whole text. Writing the frame again gives the same
 * text. */
#ifndef V8WALK_FRAME_PARSE_H
#define V8WALK_FRAME_PARSE_H

#include <stddef.h>

#include "../util/intern.h"
#include "../walker/frame.h"

void frame_parse(struct intern *strings, const char *text, size_t len, struct frame *out);

#endif
