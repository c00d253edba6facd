/* frame_memo.c — decoded JS frames kept under the stack words of their activation (frame_memo.h). */
#include "frame_memo.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "../v8/bytecode.h"
#include "../v8/heap.h"

void frame_memo_init(struct frame_memo *m)
{
	memset(m, 0, sizeof(*m));
	u64map_init(&m->gen[0].idx, 0);
	u64map_init(&m->gen[1].idx, 0);
}

void frame_memo_free(struct frame_memo *m)
{
	for (int g = 0; g < 2; g++) {
		free(m->gen[g].entries);
		free(m->gen[g].frames);
		u64map_free(&m->gen[g].idx);
	}
	free(m->pending);
	free(m->pending_frames);
	memset(m, 0, sizeof(*m));
}

void frame_memo_begin_walk(struct frame_memo *m)
{
	m->npending = m->npending_frames = 0;
	m->turned = false;
	m->walks++;
}

static bool word(struct memsrc *stack, uint64_t addr, uint64_t *v)
{
	return mem_read_u64(stack, addr, v);
}

/* The stack word at fp + the layout's offset for item (0 when the layout has none). */
static bool slot(const struct v8_layout *L, struct memsrc *stack, uint64_t fp, enum v8_item item, uint64_t *v)
{
	*v = 0;
	return !v8_has(L, item) || word(stack, fp + (uint64_t)(int64_t)L->v[item], v);
}

bool frame_memo_key(const struct v8_layout *L, struct memsrc *stack, const struct raw_frame *rf,
		    bool interpreted, bool optimized, struct memo_key *k)
{
	if (rf->how == FRAME_TOP || rf->how == FRAME_SIGNAL_RESUME || !rf->fp_ok || !v8_has(L, L_FP_ARGS))
		return false;
	memset(k, 0, sizeof(*k));
	k->fp = rf->fp;
	k->pc = rf->pc;
	uint64_t ctx;
	if (!slot(L, stack, rf->fp, L_FP_CONTEXT, &ctx) || !slot(L, stack, rf->fp, L_FP_FUNCTION, &k->function) ||
	    !slot(L, stack, rf->fp, L_FP_BYTECODE_ARRAY, &k->bytecode_array) ||
	    !slot(L, stack, rf->fp, L_FP_BYTECODE_OFFSET, &k->bytecode_offset) ||
	    !word(stack, rf->fp, &k->caller_fp))
		return false;
	k->context_is_object = v8_is_heap_object(ctx);
	if (interpreted && v8_has(L, L_FP_BYTECODE_ARRAY))
		k->function = 0;
	if (optimized && !interpreted) {
		k->function = k->bytecode_array = k->bytecode_offset = 0;
		k->optimized = 1;
	}
	/* the caller's marker (absent past the stack's end, at the outermost frame); a JS caller's
	 * slot holds its context, young as often as not: that it is an object is what counts */
	if (k->caller_fp && !slot(L, stack, k->caller_fp, L_FP_CONTEXT, &k->caller_marker))
		k->caller_marker = 0;
	if (v8_is_heap_object(k->caller_marker))
		k->caller_marker = 1;
	return true;
}

bool frame_memo_anchored_key(const struct memo_key *k, enum memo_anchor how, struct memo_key *out)
{
	if (how == MEMO_AT_FP || (how == MEMO_BY_CODE) != (k->optimized != 0) ||
	    (how != MEMO_BY_CODE && !v8_is_heap_object(k->bytecode_array)))
		return false;
	*out = *k;
	out->fp = out->caller_fp = out->function = 0;
	if (how == MEMO_BY_BASELINE)
		out->bytecode_offset = 0;
	out->anchored = how;
	return true;
}

bool frame_memo_anchor_id(const struct v8_heap *h, uint64_t bca, uint64_t id[2])
{
	return v8_is_bytecode_array(h, bca) && bca_identity(h, bca, id) && v8_is_heap_object(id[1]);
}

bool frame_memo_has_js(const struct frame_memo *m, struct memo_ref ref)
{
	return m->gen[ref.gen].entries[ref.idx].js;
}

const uint64_t *frame_memo_anchor(const struct frame_memo *m, struct memo_ref ref)
{
	return m->gen[ref.gen].entries[ref.idx].anchor;
}

bool frame_memo_receiver(const struct v8_layout *L, struct memsrc *stack, const struct raw_frame *rf,
			 uint64_t *receiver)
{
	return rf->fp_ok && v8_has(L, L_FP_ARGS) && slot(L, stack, rf->fp, L_FP_ARGS, receiver);
}

bool frame_memo_receiver_id(const struct v8_layout *L, struct memsrc *mem, uint64_t receiver, uint64_t *id)
{
	if (!v8_is_heap_object(receiver)) {
		*id = receiver;
		return true;
	}
	return word(mem, receiver - 1 + (uint64_t)(int64_t)L->v[L_HEAPOBJECT_MAP], id) && v8_is_heap_object(*id);
}

static uint64_t key_hash(const struct memo_key *k)
{
	const uint64_t *w = (const uint64_t *)k;
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < sizeof(*k) / 8; i++)
		h = u64_hash(h ^ w[i]);
	return h | 1; /* never 0: u64map's empty key */
}

static bool find_in(const struct memo_generation *g, uint64_t hash, const struct memo_key *k, uint32_t *idx)
{
	uint64_t i;
	if (!u64map_get(&g->idx, hash, &i) || !i || i > g->n || memcmp(&g->entries[i - 1].key, k, sizeof(*k)))
		return false;
	*idx = (uint32_t)(i - 1);
	return true;
}

/* Add entry e (its key, birth and receiver; its frames at `frames`) to the current generation,
 * turning generations first when it is full (once a walk: a second turn would clear entries the
 * walk found); false when it cannot. */
static bool add(struct frame_memo *m, const struct memo_entry *e, const struct frame *frames,
		uint64_t hash, struct memo_ref *ref)
{
	struct memo_generation *g = &m->gen[m->cur];
	if (g->n >= MEMO_GENERATION) {
		if (m->turned)
			return false;
		m->turned = true;
		m->cur = !m->cur;
		g = &m->gen[m->cur];
		g->n = g->nframes = 0;
		u64map_clear(&g->idx);
		m->turns++;
	}
	XGROW(g->entries, g->cap, g->n + 1);
	XGROW(g->frames, g->capframes, g->nframes + e->n);
	memcpy(g->frames + g->nframes, frames, sizeof(*frames) * e->n);
	g->entries[g->n] = *e;
	g->entries[g->n].first = (uint32_t)g->nframes;
	g->nframes += e->n;
	u64map_put(&g->idx, hash, ++g->n);
	if (ref)
		*ref = (struct memo_ref){(uint32_t)m->cur, (uint32_t)(g->n - 1)};
	return true;
}

const struct frame *frame_memo_frames(const struct frame_memo *m, struct memo_ref ref, int *n,
				      uint64_t *receiver)
{
	const struct memo_generation *g = &m->gen[ref.gen];
	const struct memo_entry *e = &g->entries[ref.idx];
	*n = e->n;
	*receiver = e->receiver;
	return g->frames + e->first;
}

bool frame_memo_find(struct frame_memo *m, const struct memo_key *k, struct memo_ref *ref)
{
	uint64_t hash = key_hash(k);
	uint32_t i;
	bool found = false;
	if (find_in(&m->gen[m->cur], hash, k, &i)) {
		*ref = (struct memo_ref){(uint32_t)m->cur, i};
		found = true;
	} else if (find_in(&m->gen[!m->cur], hash, k, &i)) {
		/* used again: it moves into the current generation (or stays where it is) */
		*ref = (struct memo_ref){(uint32_t)!m->cur, i};
		found = true;
		const struct memo_generation *old = &m->gen[!m->cur];
		const struct memo_entry e = old->entries[i];
		if (m->walks - e.born <= MEMO_LIFETIME_WALKS) {
			struct frame copy[MEMO_MAX_FRAMES];
			memcpy(copy, old->frames + e.first, sizeof(*copy) * e.n);
			add(m, &e, copy, hash, ref);
		}
	}
	if (found && m->walks - m->gen[ref->gen].entries[ref->idx].born > MEMO_LIFETIME_WALKS) {
		m->expired++;
		found = false;
	}
	if (k->anchored)
		*(found ? &m->anchored_hits : &m->anchored_misses) += 1;
	else
		*(found ? &m->hits : &m->misses) += 1;
	return found;
}

/* A frame whose decoding is complete: a JS frame named, at a known position, its definition line
 * known (its script may have had no line table when its function was first seen: the next
 * decoding may know it), or a named builtin (forEach, map, Reflect.apply, …: keyed on their
 * return address and frame like JS frames; not kept, they were decoded and their objects copied
 * at every sample). */
static bool complete(const struct frame *f)
{
	if (f->kind == FK_BUILTIN)
		return f->name != 0;
	return (f->kind == FK_JS || f->kind == FK_JS_INLINED) && f->name && !f->at_def && f->line > 0 &&
	       f->def_line > 0;
}

void frame_memo_stage(struct frame_memo *m, const struct memo_key *k, uint64_t receiver,
		      const uint64_t *anchor, const struct frame *frames, int n)
{
	if (n <= 0 || n > MEMO_MAX_FRAMES)
		return;
	bool js = false;
	for (int i = 0; i < n; i++) {
		if (!complete(&frames[i]))
			return;
		js |= frames[i].kind != FK_BUILTIN;
	}
	XGROW(m->pending, m->cappending, m->npending + 1);
	XGROW(m->pending_frames, m->cappending_frames, m->npending_frames + (size_t)n);
	m->pending[m->npending++] = (struct memo_entry){.key = *k, .born = m->walks, .receiver = receiver,
							.first = (uint32_t)m->npending_frames, .n = (uint8_t)n, .js = js};
	if (anchor)
		memcpy(m->pending[m->npending - 1].anchor, anchor, sizeof(m->pending[0].anchor));
	memcpy(m->pending_frames + m->npending_frames, frames, sizeof(*frames) * (size_t)n);
	m->npending_frames += (size_t)n;
}

void frame_memo_commit(struct frame_memo *m, bool validated)
{
	if (!validated)
		m->dropped += m->npending;
	for (size_t i = 0; validated && i < m->npending; i++) {
		const struct memo_entry *e = &m->pending[i];
		if (add(m, e, m->pending_frames + e->first, key_hash(&e->key), NULL))
			m->kept++;
	}
	m->npending = m->npending_frames = 0;
	m->turned = false;
}
