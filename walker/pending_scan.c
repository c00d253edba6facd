/* pending_scan.c — suspended async functions found in a heap, and their chains. */
#include "pending_scan.h"

#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/u64map.h"
#include "../util/xalloc.h"
#include "../v8/heap_pages.h"
#include "../v8/heap_scan.h"

enum {
	SCAN_TRIES = 3,    /* scans of a live process (repeated when a scavenge ran meanwhile) */
	LARGE_PAGES = 2,   /* an area longer than this many pages is a large-object page */
};

void pending_result_free(struct pending_result *r)
{
	free(r->v);
	free(r->frames);
	memset(r, 0, sizeof(*r));
}

/* Which of the candidates' map words are maps of async functions and generators: a Map (its map
 * is a meta map, its own map) of one of those instance types. */
static void resolve_maps(const struct v8_heap *h, struct heap_scan *s, struct pending_result *r)
{
	const struct v8_layout *L = h->L;
	size_t cap = s->maps.len ? s->maps.len : 1, nk = 0;
	uint64_t *maps = xmalloc(sizeof(*maps) * cap), *keep = xmalloc(sizeof(*keep) * cap);
	size_t n = heap_scan_maps(s, maps, cap);
	uint64_t metas[8];
	size_t nmeta = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t meta, self;
		uint16_t t;
		if (!mem_read_u64(h->mem, maps[i] - 1, &meta) || !v8_is_heap_object(meta) ||
		    !mem_read_u64(h->mem, meta - 1, &self) || self != meta ||
		    !v8_field_u16(h, maps[i], L->v[L_MAP_INSTANCE_TYPE], &t))
			continue;
		size_t k = 0;
		while (k < nmeta && metas[k] != meta)
			k++;
		if (k == nmeta && nmeta < 8)
			metas[nmeta++] = meta;
		if ((v8_has(L, L_T_JS_ASYNC_FUNCTION_OBJECT) && t == L->v[L_T_JS_ASYNC_FUNCTION_OBJECT]) ||
		    (v8_has(L, L_T_JS_ASYNC_GENERATOR_OBJECT) && t == L->v[L_T_JS_ASYNC_GENERATOR_OBJECT]))
			keep[nk++] = maps[i];
	}
	heap_scan_keep_maps(s, keep, nk);
	r->maps = n;
	r->meta_maps = nmeta;
	r->async_maps = nk;
	free(maps);
	free(keep);
}

static bool large(const struct v8_layout *L, const struct heap_page *p)
{
	return p->area_end - p->addr > ((uint64_t)LARGE_PAGES << L->v[L_PAGE_SHIFT]);
}

/* One pass over the pages' object areas; false when the time ran out. */
static bool scan_pages(const struct v8_heap *h, const struct heap_page_list *pages, struct heap_scan *s,
		       uint8_t *buf, size_t cap, uint64_t deadline, struct pending_result *r)
{
	for (size_t i = 0; i < pages->n; i++) {
		const struct heap_page *p = &pages->v[i];
		if (heap_page_is_from_space(h->L, p) || large(h->L, p))
			continue;
		if (deadline && now_ns() > deadline)
			return false;
		size_t len = p->area_end - p->area_start < cap ? (size_t)(p->area_end - p->area_start) : cap;
		ssize_t got = mem_read_some(h->mem, p->area_start, buf, len);
		if (got > 0) {
			heap_scan_buffer(s, p->area_start, buf, (size_t)got);
			r->bytes += (uint64_t)got;
		}
	}
	return true;
}

/* Did a page's flags change since the list was made (a scavenge flipped the young generation)? */
static bool flipped(const struct v8_heap *h, const struct heap_page_list *pages)
{
	if (!v8_has(h->L, L_PAGE_FLAGS))
		return false;
	for (size_t i = 0; i < pages->n; i++) {
		uint64_t f;
		if (!mem_read_u64(h->mem, pages->v[i].addr + (uint64_t)h->L->v[L_PAGE_FLAGS], &f) || f != pages->v[i].flags)
			return true;
	}
	return false;
}

static void count_pages(const struct v8_layout *L, const struct heap_page_list *pages, struct pending_result *r)
{
	uint64_t heaps[16];
	size_t nh = 0;
	r->pages = pages->n;
	r->from_pages = r->large_pages = 0;
	for (size_t i = 0; i < pages->n; i++) {
		r->from_pages += heap_page_is_from_space(L, &pages->v[i]);
		r->large_pages += large(L, &pages->v[i]);
		size_t k = 0;
		while (k < nh && heaps[k] != pages->v[i].heap)
			k++;
		if (k == nh && nh < 16)
			heaps[nh++] = pages->v[i].heap;
	}
	r->heaps = nh;
}

/* The heap of the page an object lies in. */
static uint64_t heap_of(const struct heap_page_list *pages, uint64_t addr)
{
	for (size_t i = 0; i < pages->n; i++)
		if (addr >= pages->v[i].area_start && addr < pages->v[i].area_end)
			return pages->v[i].heap;
	return 0;
}

static bool is_context(const struct v8_heap *h, uint64_t obj)
{
	int t = v8_type(h, obj);
	return t >= 0 && v8_has(h->L, L_T_CONTEXT_FIRST) && v8_has(h->L, L_T_CONTEXT_LAST) &&
	       t >= h->L->v[L_T_CONTEXT_FIRST] && t <= h->L->v[L_T_CONTEXT_LAST];
}

/* Check one object found by its map, and follow its chain into r. */
static void take(const struct v8_heap *h, struct memsrc *live, const struct builtin_ids *ids,
		 struct u64map *sfi_kinds, const struct pending_limits *lim, uint64_t addr, uint64_t heap,
		 struct pending_result *r)
{
	const struct v8_layout *L = h->L;
	struct async_trail trail;
	struct async_walk w = {.h = h, .ids = ids, .sfi_kinds = sfi_kinds, .trail = live ? &trail : NULL};
	trail.n = 0;
	trail.overflow = false;
	uint64_t g = addr + 1, ctx;
	int64_t state;
	if (!async_is_generator(&w, g) || !v8_field(h, g, L->v[L_JSGEN_CONTEXT], &ctx) || !is_context(h, ctx)) {
		if (w.moved)
			r->moved++;
		else
			r->not_objects++;
		return;
	}
	if ((state = async_generator_state(&w, g)) < 0) {
		r->running++;
		return;
	}
	XGROW(r->frames, r->capframes, r->nframes + (size_t)lim->max_chain + 1);
	struct async_frame *f = &r->frames[r->nframes];
	if (!async_generator_frame(&w, g, f)) {
		r->not_objects++;
		return;
	}
	enum async_end end = AE_NOBODY;
	int n = async_chain_of_generator(&w, g, f + 1, lim->max_chain, &end);
	if (w.moved || end == AE_MOVED) {
		r->moved++;
		return;
	}
	if (live && !async_trail_holds(&trail, live)) {
		r->changed++;
		return;
	}
	XGROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = (struct pending_fn){.generator = g, .heap = heap, .chain_at = r->nframes,
					   .chain_n = (size_t)n + 1, .end = end};
	r->nframes += (size_t)n + 1;
}

/* Mark the functions another function's chain holds (they are not the innermost waiting). */
static void mark_awaited(struct pending_result *r)
{
	struct u64map at;
	u64map_init(&at, 0);
	for (size_t i = 0; i < r->n; i++)
		u64map_put(&at, r->v[i].generator, i + 1);
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 1; k < r->v[i].chain_n; k++) {
			uint64_t idx;
			const struct async_frame *f = &r->frames[r->v[i].chain_at + k];
			if (f->kind == AF_FUNCTION && u64map_get(&at, f->generator, &idx))
				r->v[idx - 1].awaited = true;
		}
	u64map_free(&at);
}

bool pending_scan(const struct v8_heap *h, struct memsrc *live, struct addrspace *as,
		  const struct v8_runtime *rt, const struct builtin_ids *ids, const struct pending_limits *lim,
		  struct pending_result *r, const char **why)
{
	memset(r, 0, sizeof(*r));
	uint64_t allocator = heap_pages_allocator_symbol(as, rt->mod);
	uint64_t t0 = now_ns(), deadline = lim->budget_ns ? t0 + lim->budget_ns : 0;
	struct heap_page_list pages;
	size_t cap = (size_t)1 << h->L->v[L_PAGE_SHIFT];
	uint8_t *buf = xmalloc(cap);
	struct heap_scan s;
	bool complete = true;
	for (int attempt = 0;; attempt++) {
		uint64_t tp = now_ns();
		heap_pages_find(h, as, allocator, lim->max_pages, &pages);
		r->pages_ns += now_ns() - tp;
		r->aligned = pages.aligned_tried;
		r->allocator_how = pages.allocator_how;
		r->capped |= pages.capped;
		count_pages(h->L, &pages, r);
		heap_scan_init(&s, h->L, lim->max_candidates);
		r->bytes = 0;
		complete = scan_pages(h, &pages, &s, buf, cap, deadline, r);
		resolve_maps(h, &s, r);
		/* too many candidates to keep: again, with the maps known */
		if (complete && s.cand_overflow) {
			heap_scan_restart_known(&s);
			complete = scan_pages(h, &pages, &s, buf, cap, deadline, r);
		}
		if (!live || !complete || attempt + 1 == SCAN_TRIES || !flipped(h, &pages))
			break;
		r->retries++;
		heap_scan_free(&s);
		heap_page_list_free(&pages);
	}
	r->capped |= !complete || s.cand_overflow || s.maps_overflow;
	r->scan_ns = now_ns() - t0 - r->pages_ns;
	free(buf);
	bool found = pages.n > 0;
	if (!found)
		*why = pages.allocator ? "no heap page names V8's page allocator"
				       : "V8's page allocator is unknown (no symbol, and no page reservations agree)";
	size_t max_obj = lim->max_functions * 2 + 1024;
	uint64_t *obj = xmalloc(sizeof(*obj) * max_obj);
	size_t nobj = heap_scan_objects(&s, obj, max_obj);
	r->candidates = nobj;
	struct u64map sfi_kinds;
	u64map_init(&sfi_kinds, 4096);
	uint64_t t1 = now_ns();
	for (size_t i = 0; i < nobj && r->n < lim->max_functions; i++) {
		if ((deadline && now_ns() > deadline) || r->nframes + (size_t)lim->max_chain + 1 > lim->max_frames) {
			r->capped = true;
			break;
		}
		take(h, live, ids, &sfi_kinds, lim, obj[i], heap_of(&pages, obj[i]), r);
	}
	r->capped |= r->n == lim->max_functions;
	mark_awaited(r);
	r->walk_ns = now_ns() - t1;
	u64map_free(&sfi_kinds);
	free(obj);
	heap_scan_free(&s);
	heap_page_list_free(&pages);
	return found;
}
