/* script_text.h — the end of a script's source, read from the heap as UTF-8: enough to hold its
 * last sourceMappingURL comment (a tail of at most 64 Ki code units, grown only while the last
 * line — an inline map — began before it, up to a bound). */
#ifndef V8WALK_SM_SCRIPT_TEXT_H
#define V8WALK_SM_SCRIPT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "../v8/heap.h"

/* false when the source string cannot be read. */
bool sm_source_tail(const struct v8_heap *h, uint64_t source, size_t max_units, struct strbuf *out);

#endif
