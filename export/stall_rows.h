/* stall_rows.h — one stall of an event loop (profile/stall_tracker.h) as a row of PREFIX_stalls
 * (ch_schema.h), in RowBinary: when it began (the second, and the Unix millisecond), the agent's
 * host, the process's service and the agent's labels, the process, how long it ran, its samples by
 * class and the frames that name the native and builtin classes, the JS frames of its most
 * frequent function (innermost first, as `v8walk --stalls` prints them), and its stacks: each
 * one's hash as the stacks table has it (the stall's samples are also the period's, so their
 * stacks go out with the period) and its count. */
#ifndef V8WALK_STALL_ROWS_H
#define V8WALK_STALL_ROWS_H

#include <stdint.h>

#include "../profile/stall_tracker.h"
#include "../util/strbuf.h"
#include "period_rows.h"

/* Append the row of r (which began at start_unix_ms) to rows. */
void stall_row_add(struct strbuf *rows, struct row_context *rc, const struct intern *strings,
		   const struct stall_report *r, int64_t start_unix_ms);

#endif
