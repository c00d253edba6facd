/* frame_text.h — how a frame is written: `NAME (FILE:LINE)` for JavaScript (with `_[j]`/`_[i]`/`_[a]`
 * — its own frame, inlined, an async function awaiting — in folded output), the bare name for native code and builtins; names are made safe for one-line
 * formats (no `;`; controls and invalid UTF-8 as visible \xHH escapes). */
#ifndef V8WALK_FRAME_TEXT_H
#define V8WALK_FRAME_TEXT_H

#include <stdbool.h>

#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../walker/frame.h"

/* Append a frame's text. `annotate` adds the folded-format suffixes (_[j], _[i], _[a], _[k]). */
void frame_text(const struct intern *strings, const struct frame *f, bool annotate,
		struct strbuf *out);
/* Append the counted bytes s[0..len) escaped (util/text_escape.h) with ';' → ':' (folded-stack
 * safety). */
void append_sanitized(struct strbuf *out, const char *s, size_t len);

/* The name a frame's function is shown by in the formats that have functions: a JS function's
 * own name (walker/frame.h frame_own_name), not the call-site name; "(anonymous)" for an empty
 * one. */
const char *frame_function_name(const struct intern *strings, const struct frame *f);
/* The identity of a frame's function (a function is one frame in speedscope, one node per call
 * path in cpuprofile, one Function in pprof): a JS function's script and start position (line
 * and column: one function called on several receivers is one function; minified code puts
 * many functions on a line), or its name and script when the position is unknown; kind, name
 * and module of the rest. */
void frame_function_key(const struct frame *f, struct strbuf *key);

#endif
