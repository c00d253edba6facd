/* heap_pages.c — finding V8's heap pages by their reservation. */
#include "heap_pages.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

enum { MAX_VOTES = 16 };

static uint64_t word_at(const uint8_t *buf, int32_t off)
{
	uint64_t v;
	if (off < 0 || off + 8 > HEAP_PAGE_HEADER)
		return 0;
	memcpy(&v, buf + off, 8);
	return v;
}

/* Where the page's own fields are: the header, or the metadata it points to. */
static const uint8_t *fields(const struct v8_layout *L, const uint8_t *hdr, const uint8_t *meta)
{
	return v8_has(L, L_PAGE_METADATA) ? meta : hdr;
}

uint64_t heap_page_metadata_ptr(const struct v8_layout *L, const uint8_t *hdr)
{
	return v8_has(L, L_PAGE_METADATA) ? word_at(hdr, L->v[L_PAGE_METADATA]) : 0;
}

uint64_t heap_page_allocator(const struct v8_layout *L, uint64_t A, const uint8_t *hdr, const uint8_t *meta)
{
	const uint8_t *f = fields(L, hdr, meta);
	if (!f || !v8_has(L, L_PAGE_RESERVATION))
		return 0;
	int32_t r = L->v[L_PAGE_RESERVATION];
	return word_at(f, r + 8) == A ? word_at(f, r) : 0;
}

bool heap_page_decode(const struct v8_layout *L, uint64_t A, const uint8_t *hdr, const uint8_t *meta,
		      uint64_t allocator, uint64_t max_span, struct heap_page *p)
{
	const uint8_t *f = fields(L, hdr, meta);
	if (!allocator || !f || heap_page_allocator(L, A, hdr, meta) != allocator ||
	    !v8_has(L, L_PAGE_AREA_START) || !v8_has(L, L_PAGE_AREA_END) || !v8_has(L, L_PAGE_FLAGS))
		return false;
	p->addr = A;
	p->area_start = word_at(f, L->v[L_PAGE_AREA_START]);
	p->area_end = word_at(f, L->v[L_PAGE_AREA_END]);
	p->flags = word_at(hdr, L->v[L_PAGE_FLAGS]);
	p->heap = v8_has(L, L_PAGE_HEAP) ? word_at(f, L->v[L_PAGE_HEAP]) : 0;
	/* the area lies inside the page's own span, after its header, word-aligned */
	return p->area_start > A && p->area_start <= p->area_end && p->area_end - A <= max_span &&
	       !(p->area_start & 7) && !(p->area_end & 7);
}

bool heap_page_is_from_space(const struct v8_layout *L, const struct heap_page *p)
{
	return v8_has(L, L_PAGE_FROM_BIT) && L->v[L_PAGE_FROM_BIT] < 64 && (p->flags >> L->v[L_PAGE_FROM_BIT] & 1);
}

struct sym_find {
	uint64_t value;
	bool found;
};

static bool find_allocator(void *vctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	(void)size, (void)type, (void)shndx;
	struct sym_find *f = vctx;
	/* PageAllocatorInitializer's static default_page_allocator (not cppgc's, not the guard) */
	static const char tail[] = "22default_page_allocator";
	size_t n = strlen(name);
	if (strncmp(name, "_ZZN2v88internal", 16) == 0 && strstr(name, "PageAllocatorInitializer") &&
	    n > sizeof(tail) && strcmp(name + n - (sizeof(tail) - 1), tail) == 0) {
		f->value = value;
		f->found = true;
		return false;
	}
	return true;
}

uint64_t heap_pages_allocator_symbol(struct addrspace *as, size_t v8_module)
{
	if (v8_module >= as->nmods)
		return 0;
	struct module *mod = &as->mods[v8_module];
	struct elf_image *img = addrspace_image(as, mod);
	struct sym_find f = {0};
	uint64_t addr;
	if (!img)
		return 0;
	elf_image_foreach_sym(img, find_allocator, &f);
	return f.found && module_runtime_addr(mod, f.value, &addr) ? addr : 0;
}

/* One aligned address's header (and metadata) as read. */
struct probe {
	uint64_t addr, limit; /* the mapping's end */
	uint8_t hdr[HEAP_PAGE_HEADER], meta[HEAP_PAGE_HEADER];
	bool has_meta;
};

static void read_probe(const struct v8_heap *h, struct probe *pr)
{
	const struct v8_layout *L = h->L;
	pr->has_meta = false;
	if (!mem_read(h->mem, pr->addr, pr->hdr, sizeof(pr->hdr))) {
		memset(pr->hdr, 0, sizeof(pr->hdr));
		return;
	}
	uint64_t m = heap_page_metadata_ptr(L, pr->hdr);
	if (m && !(m & 7) && mem_read(h->mem, m, pr->meta, sizeof(pr->meta)))
		pr->has_meta = true;
}

/* The allocator most aligned addresses' reservations name together with themselves. */
static uint64_t vote(const struct v8_layout *L, const struct probe *pr, size_t n)
{
	uint64_t cand[MAX_VOTES] = {0};
	size_t count[MAX_VOTES] = {0}, nc = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = heap_page_allocator(L, pr[i].addr, pr[i].hdr, pr[i].has_meta ? pr[i].meta : NULL);
		if (!a)
			continue;
		size_t k = 0;
		while (k < nc && cand[k] != a)
			k++;
		if (k == nc) {
			if (nc == MAX_VOTES)
				continue;
			cand[nc++] = a;
		}
		count[k]++;
	}
	size_t best = 0;
	for (size_t k = 1; k < nc; k++)
		if (count[k] > count[best])
			best = k;
	return nc && count[best] >= 2 ? cand[best] : 0;
}

void heap_pages_find(const struct v8_heap *h, const struct addrspace *as, uint64_t allocator,
		     size_t max_pages, struct heap_page_list *out)
{
	const struct v8_layout *L = h->L;
	memset(out, 0, sizeof(*out));
	if (!v8_has(L, L_PAGE_SHIFT) || L->v[L_PAGE_SHIFT] < 12 || L->v[L_PAGE_SHIFT] > 24)
		return;
	uint64_t align = 1ULL << L->v[L_PAGE_SHIFT];
	struct probe *pr = NULL;
	size_t npr = 0, cap = 0;
	/* (a budget of aligned addresses: 4 Ki per GiB of anonymous memory) */
	size_t budget = max_pages * 4;
	for (size_t i = 0; i < as->maps.n && npr < budget; i++) {
		const struct mapping *m = &as->maps.v[i];
		if (!mapping_is_anon(m) || (m->prot & (MAP_R | MAP_W)) != (MAP_R | MAP_W) || m->end <= m->start)
			continue;
		for (uint64_t A = (m->start + align - 1) & ~(align - 1); A >= m->start && A + HEAP_PAGE_HEADER <= m->end &&
		     npr < budget; A += align) {
			XGROW(pr, cap, npr + 1);
			pr[npr].addr = A;
			pr[npr].limit = m->end;
			read_probe(h, &pr[npr]);
			npr++;
		}
	}
	out->aligned_tried = npr;
	out->allocator_how = "symbol";
	if (!allocator) {
		allocator = vote(L, pr, npr);
		out->allocator_how = "the pages' own reservations";
	}
	out->allocator = allocator;
	uint64_t covered_to = 0; /* a large page's span: its aligned addresses are not headers */
	for (size_t i = 0; i < npr && allocator; i++) {
		struct heap_page p;
		if (pr[i].addr < covered_to ||
		    !heap_page_decode(L, pr[i].addr, pr[i].hdr, pr[i].has_meta ? pr[i].meta : NULL, allocator,
				      pr[i].limit - pr[i].addr, &p))
			continue;
		if (out->n == max_pages) {
			out->capped = true;
			break;
		}
		XGROW(out->v, out->cap, out->n + 1);
		out->v[out->n++] = p;
		covered_to = p.area_end;
	}
	if (npr == budget)
		out->capped = true;
	free(pr);
}

void heap_page_list_free(struct heap_page_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
