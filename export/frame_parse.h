/* frame_parse.h — a frame's folded text (as profile/frame_text.h writes it with annotations)
 * back into a frame, so that stacks read from ClickHouse go through v8walk's own aggregation and
 * writers: `NAME (FILE:LINE)_[j]` is JavaScript (`_[i]` inlined, `_[a]` an awaiting async
 * function), `NAME (URL)_[w]` WebAssembly code of the module at URL, `NAME_[k]` a kernel frame,
 * anything else a native frame named by the whole text. Writing the frame again gives the same
 * text. The stacks table also keeps the kinds the folded text does not say, each by a marker of
 * v8walk's own after the text (frame_kind_marker): `_[b]` a V8 builtin, `_[t]` a V8 frame known
 * by its type, `_[u]` unknown code; frame_parse takes the
 * marker off again. (stack_hash stays the hash of the folded text, without these markers.) */
#ifndef V8WALK_FRAME_PARSE_H
#define V8WALK_FRAME_PARSE_H

#include <stddef.h>

#include "../util/intern.h"
#include "../walker/frame.h"

void frame_parse(struct intern *strings, const char *text, size_t len, struct frame *out);
/* The marker a stored frame of this kind ends with, or NULL when its folded text says its kind
 * (JavaScript, kernel) or it is native. */
const char *frame_kind_marker(enum frame_kind kind);

#endif
