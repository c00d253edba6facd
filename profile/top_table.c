/* top_table.c — per-function own and total samples of a window and of the whole run. */
#include "top_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "frame_text.h"

void top_table_init(struct top_table *t)
{
	memset(t, 0, sizeof(*t));
	intern_init(&t->keys);
	intern_init(&t->texts);
}

void top_table_free(struct top_table *t)
{
	free(t->rows);
	free(t->window_self);
	free(t->all_self);
	free(t->stamp);
	free(t->frame_text);
	intern_free(&t->keys);
	intern_free(&t->texts);
	memset(t, 0, sizeof(*t));
}

/* The id of the text a frame is shown by (JS at its current or its definition line). */
static uint32_t text_of(struct top_table *t, const struct profile *p, uint32_t frame,
			const struct top_query *q)
{
	if (t->frame_text[frame] != UINT32_MAX)
		return t->frame_text[frame];
	struct frame f = p->frames[frame];
	if (q->def_lines && frame_is_js(&f)) { /* the function, whatever its receiver */
		f.line = f.def_line;
		f.name = frame_own_name(&f);
	}
	struct strbuf text;
	sb_init(&text);
	frame_text(p->strings, &f, false, &text);
	t->frame_text[frame] = intern_n(&t->texts, text.s ? text.s : "", text.len);
	sb_free(&text);
	return t->frame_text[frame];
}

/* The row of a frame node: its text (and process, by_process). */
static uint32_t row_of(struct top_table *t, const struct profile *p, uint32_t node,
		       const struct top_query *q)
{
	const struct pnode *nd = &p->nodes[node];
	pid_t pid = q->by_process ? p->threads[nd->owner].pid : 0;
	uint32_t text = text_of(t, p, nd->frame, q);
	char key[48];
	int n = snprintf(key, sizeof(key), "%u|%d", text, (int)pid);
	size_t before = t->keys.n;
	uint32_t r = intern_n(&t->keys, key, (size_t)n);
	if (t->keys.n != before) {
		XGROW(t->rows, t->cap, r + 1);
		XGROW(t->stamp, t->capstamp, r + 1);
		t->rows[r] = (struct top_row){.frame = nd->frame, .text = text, .pid = pid};
		t->stamp[r] = 0;
		t->n = r + 1;
	}
	return r;
}

/* The node own samples of a stack ending at `leaf` are charged to. */
static uint32_t own_node(const struct profile *p, uint32_t leaf, bool native_own)
{
	if (native_own || frame_is_js(&p->frames[p->nodes[leaf].frame]))
		return leaf;
	for (uint32_t n = p->nodes[leaf].parent; pnode_is_frame(&p->nodes[n]) && n; n = p->nodes[n].parent)
		if (frame_is_js(&p->frames[p->nodes[n].frame]))
			return n;
	return leaf;
}

static uint64_t sort_key(const struct top_row *r, enum top_sort s)
{
	switch (s) {
	case TOP_SORT_TOTAL: return r->total;
	case TOP_SORT_OWN_TIME: return r->own_all;
	case TOP_SORT_TOTAL_TIME: return r->total_all;
	default: return r->own;
	}
}

static int cmp_rows(const void *a, const void *b, void *by)
{
	const struct top_row *x = a, *y = b;
	enum top_sort s = *(const enum top_sort *)by;
	uint64_t kx = sort_key(x, s), ky = sort_key(y, s);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	/* ties: the other columns, then the frame, so that the order is stable */
	if (x->total_all != y->total_all)
		return x->total_all > y->total_all ? -1 : 1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Count `own` and `total` of every row on the path of a stack ending at `leaf`, for n samples
 * in the window and n_all since the start. */
static void count_path(struct top_table *t, const struct profile *p, uint32_t leaf, uint64_t n,
		       uint64_t n_all, const struct top_query *q, uint32_t path_id)
{
	uint32_t own = own_node(p, leaf, q->native_own);
	uint32_t r = row_of(t, p, own, q);
	t->rows[r].own += n;
	t->rows[r].own_all += n_all;
	for (uint32_t nd = leaf; nd && pnode_is_frame(&p->nodes[nd]); nd = p->nodes[nd].parent) {
		r = row_of(t, p, nd, q);
		if (t->stamp[r] == path_id)
			continue; /* recursion: once per sample */
		t->stamp[r] = path_id;
		t->rows[r].total += n;
		t->rows[r].total_all += n_all;
	}
}

/* Bring the since-the-start counts to record `to` (from where they were: records only grow; a
 * profile that was emptied starts them again). */
static void advance_all(struct top_table *t, const struct profile *p, size_t to)
{
	if (to < t->all_to || p->nrecs < t->all_to) {
		t->all_to = 0;
		t->nall = 0;
	}
	XGROW(t->all_self, t->capall, p->nnodes);
	if (p->nnodes > t->nall) {
		memset(t->all_self + t->nall, 0, (p->nnodes - t->nall) * sizeof(*t->all_self));
		t->nall = p->nnodes;
	}
	for (size_t i = t->all_to; i < to; i++)
		t->all_self[p->recs[i].node]++;
	t->all_to = to;
}

void top_table_compute(struct top_table *t, const struct profile *p, const struct top_query *q)
{
	t->n = 0;
	t->samples = t->samples_all = 0;
	intern_free(&t->keys);
	intern_init(&t->keys);
	intern_free(&t->texts);
	intern_init(&t->texts);
	XGROW(t->frame_text, t->capframe, p->nframes ? p->nframes : 1);
	memset(t->frame_text, 0xff, p->nframes * sizeof(*t->frame_text));
	XGROW(t->window_self, t->capwindow, p->nnodes);
	memset(t->window_self, 0, p->nnodes * sizeof(*t->window_self));
	size_t to = q->window_to < p->nrecs ? q->window_to : p->nrecs;
	for (size_t i = q->window_from; i < to; i++)
		t->window_self[p->recs[i].node]++;
	advance_all(t, p, to);
	uint32_t path_id = 0;
	for (uint32_t nd = 1; nd < p->nnodes; nd++) {
		const struct pnode *n = &p->nodes[nd];
		uint32_t self_all = t->all_self[nd];
		if (!self_all && !t->window_self[nd])
			continue;
		if (q->thread >= 0 && n->owner != (uint32_t)q->thread)
			continue;
		t->samples += t->window_self[nd];
		t->samples_all += self_all;
		if (pnode_is_frame(n))
			count_path(t, p, nd, t->window_self[nd], self_all, q, ++path_id);
	}
	enum top_sort by = q->sort;
	if (t->n > 1)
		qsort_r(t->rows, t->n, sizeof(*t->rows), cmp_rows, &by);
}

const char *top_row_text(const struct top_table *t, const struct top_row *r)
{
	return intern_get(&t->texts, r->text);
}
