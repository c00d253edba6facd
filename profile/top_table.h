/* top_table.h — the table `v8walk top` shows, computed from the aggregation alone (no terminal):
 * one row per function (by current line or by definition line; per process with --all-node) with
 * its own and total samples in a window of the sample records and since the start. Own samples
 * go to the leaf frame, or, with native_own off, to the innermost JavaScript function of the
 * stack (native time charged to the JS that called it; a stack with no JS keeps its leaf). Total
 * samples count a function once per sample, however often it recurs on the stack. A row is what
 * the user sees: frames that print the same (a JS function inlined or not, a native name in two
 * kinds) are one row. */
#ifndef V8WALK_TOP_TABLE_H
#define V8WALK_TOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/intern.h"
#include "profile.h"

/* The sort columns, as keys 1-4 choose them. */
enum top_sort { TOP_SORT_OWN, TOP_SORT_TOTAL, TOP_SORT_OWN_TIME, TOP_SORT_TOTAL_TIME };

struct top_query {
	long thread;            /* index into profile.threads; -1: every thread */
	bool def_lines;         /* JS functions by definition line (else by the current line) */
	bool native_own;        /* own samples of native frames to themselves */
	bool by_process;        /* a row per (process, function) */
	enum top_sort sort;
	size_t window_from, window_to; /* the window: records [from, to) */
};

struct top_row {
	uint32_t frame;             /* the frame (profile.frames) that stands for the row */
	uint32_t text;              /* what the row shows (top_row_text) */
	pid_t pid;                  /* by_process: the process; else 0 */
	uint64_t own, total;        /* samples in the window */
	uint64_t own_all, total_all; /* samples since the start */
};

struct top_table {
	struct top_row *rows;       /* sorted */
	size_t n, cap;
	uint64_t samples, samples_all; /* of the chosen thread(s): in the window, since the start */
	/* scratch */
	uint32_t *window_self;      /* per node: samples of the window that ended there */
	size_t capwindow;
	/* per node: samples of records [0, all_to) that ended there ("since the start" stops at the
	 * window's end, so that a paused view does not change) */
	uint32_t *all_self;
	size_t capall, nall, all_to;
	uint32_t *stamp;            /* per row: the last node path that counted it */
	size_t capstamp;
	struct intern keys;         /* row identity → row index */
	struct intern texts;        /* what a row shows → its id */
	uint32_t *frame_text;       /* per frame index: its text's id (UINT32_MAX: not yet) */
	size_t capframe;
};

void top_table_init(struct top_table *t);
void top_table_free(struct top_table *t);
/* Recompute the rows for the query (the records of the window must exist in p). */
void top_table_compute(struct top_table *t, const struct profile *p, const struct top_query *q);
/* What a row of the latest top_table_compute shows: its frame's text (a JS function by its own
 * name at its definition line with def_lines). */
const char *top_row_text(const struct top_table *t, const struct top_row *r);

#endif
