/* memsnap.c — per-sample memory copy over a backing memory source. */
#include "memsnap.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

static ssize_t snap_read(struct memsrc *base, uint64_t addr, void *buf, size_t len);

/* Reading a remote range costs about the same whatever its size within a page (the kernel pins
 * the page for each range): ranges that share a page are read as one, and a single read reads
 * ahead. Ranges up to SMALL_RANGE bytes are found through an index sorted by address; larger ones
 * (the stack chunk) are few and tried first. */
enum { MERGE_GAP = 512, PAGE = 4096, READ_AHEAD = 256, SMALL_RANGE = 2 * PAGE };

static void snap_prefetch(struct memsrc *base, const uint64_t *addrs, const uint32_t *lens, size_t n);

static const struct memsrc_ops snap_ops = {.read = snap_read, .readv = NULL, .prefetch = snap_prefetch};

void memsnap_init(struct memsnap *s, struct memsrc *backing, size_t budget)
{
	memset(s, 0, sizeof(*s));
	s->base.ops = &snap_ops;
	s->backing = backing;
	s->budget = budget;
	s->late_from = SIZE_MAX;
}

void memsnap_free(struct memsnap *s)
{
	free(s->ranges);
	free(s->by_addr);
	free(s->large);
	free(s->data);
	memsnap_init(s, s->backing, s->budget);
}

void memsnap_reset(struct memsnap *s)
{
	s->nranges = 0;
	s->nsmall = s->nlarge = 0;
	s->used = 0;
	s->misses = 0;
	s->last_hit = 0;
	s->nbad = 0;
	s->late_from = SIZE_MAX;
	s->late_reads = 0;
}

void memsnap_mark_late(struct memsnap *s)
{
	s->late_from = s->nranges;
}

/* The page [addr, addr+len) lies in, or UINT64_MAX when it spans two (or is empty). */
static uint64_t one_page(uint64_t addr, size_t len)
{
	return len && (addr + len - 1) / PAGE == addr / PAGE ? addr / PAGE : UINT64_MAX;
}

/* [addr, addr+len) inside one page that a read found unreadable? */
static bool on_bad_page(const struct memsnap *s, uint64_t addr, size_t len)
{
	uint64_t page = one_page(addr, len);
	size_t n = s->nbad < MEMSNAP_BAD_PAGES ? s->nbad : MEMSNAP_BAD_PAGES;
	for (size_t i = 0; page != UINT64_MAX && i < n; i++)
		if (s->bad_pages[i] == page)
			return true;
	return false;
}

/* A read of [addr, addr+len), inside one page, failed: the page is not readable. */
static void note_bad_page(struct memsnap *s, uint64_t addr, size_t len)
{
	uint64_t page = one_page(addr, len);
	if (page != UINT64_MAX && !on_bad_page(s, addr, len))
		s->bad_pages[s->nbad++ % MEMSNAP_BAD_PAGES] = page;
}

static bool holds(const struct snap_range *r, uint64_t addr, size_t len)
{
	return addr >= r->addr && addr + len <= r->addr + r->len && addr + len >= addr;
}

static const void *at(const struct memsnap *s, size_t i, uint64_t addr)
{
	return s->data + s->ranges[i].off + (addr - s->ranges[i].addr);
}

/* First position in the address index whose range starts above addr. */
static size_t upper_bound(const struct memsnap *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nsmall;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ranges[s->by_addr[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const void *memsnap_find(struct memsnap *s, uint64_t addr, size_t len)
{
	/* consecutive reads mostly touch one object (or the stack): try the last hit first */
	if (s->last_hit < s->nranges && holds(&s->ranges[s->last_hit], addr, len))
		return at(s, s->last_hit, addr);
	for (size_t i = 0; i < s->nlarge; i++) {
		if (holds(&s->ranges[s->large[i]], addr, len)) {
			s->last_hit = s->large[i];
			return at(s, s->last_hit, addr);
		}
	}
	/* small ranges start at most SMALL_RANGE below any address they hold */
	for (size_t k = upper_bound(s, addr); k-- > 0;) {
		const struct snap_range *r = &s->ranges[s->by_addr[k]];
		if (r->addr + SMALL_RANGE < addr)
			break;
		if (holds(r, addr, len)) {
			s->last_hit = s->by_addr[k];
			return at(s, s->last_hit, addr);
		}
	}
	return NULL;
}

/* Where the first range that starts above addr begins (UINT64_MAX: none does). */
static uint64_t next_start(const struct memsnap *s, uint64_t addr)
{
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < s->nlarge; i++) {
		uint64_t a = s->ranges[s->large[i]].addr;
		if (a > addr && a < next)
			next = a;
	}
	size_t k = upper_bound(s, addr);
	if (k < s->nsmall && s->ranges[s->by_addr[k]].addr < next)
		next = s->ranges[s->by_addr[k]].addr;
	return next;
}

static uint8_t *reserve(struct memsnap *s, size_t len)
{
	if (s->used + len > s->budget)
		return NULL;
	if (s->used + len > s->data_cap) {
		size_t ncap = s->data_cap ? s->data_cap : 65536;
		while (ncap < s->used + len)
			ncap *= 2;
		s->data = xrealloc(s->data, ncap);
		s->data_cap = ncap;
	}
	return s->data + s->used;
}

/* Add a range (its bytes already at data + off) and index it by address. */
static void add_range(struct memsnap *s, uint64_t addr, size_t len, size_t off)
{
	XGROW(s->ranges, s->cap, s->nranges + 1);
	size_t i = s->nranges++;
	s->ranges[i] = (struct snap_range){.addr = addr, .len = len, .off = off};
	if (len > SMALL_RANGE) {
		XGROW(s->large, s->cap_large, s->nlarge + 1);
		s->large[s->nlarge++] = (uint32_t)i;
		return;
	}
	XGROW(s->by_addr, s->cap_small, s->nsmall + 1);
	size_t k = upper_bound(s, addr);
	memmove(&s->by_addr[k + 1], &s->by_addr[k], (s->nsmall - k) * sizeof(*s->by_addr));
	s->by_addr[k] = (uint32_t)i;
	s->nsmall++;
}

static void keep(struct memsnap *s, uint64_t addr, size_t len)
{
	add_range(s, addr, len, s->used);
	s->used += len;
}

void memsnap_put2(struct memsnap *s, uint64_t addr, const void *a, size_t alen, const void *b, size_t blen)
{
	uint8_t *dst = reserve(s, alen + blen);
	if (!dst)
		return;
	memcpy(dst, a, alen);
	if (blen)
		memcpy(dst + alen, b, blen);
	keep(s, addr, alen + blen);
}

void memsnap_put(struct memsnap *s, uint64_t addr, const void *buf, size_t len)
{
	memsnap_put2(s, addr, buf, len, NULL, 0);
}

size_t memsnap_add(struct memsnap *s, uint64_t addr, size_t len)
{
	uint8_t *dst = reserve(s, len);
	if (!dst)
		return 0;
	s->misses++;
	ssize_t got = mem_read_some(s->backing, addr, dst, len);
	if (got <= 0)
		return 0;
	keep(s, addr, (size_t)got);
	return (size_t)got;
}

struct want {
	uint64_t addr, end;
};

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}


size_t memsnap_prefetch(struct memsnap *s, const uint64_t *addrs, const uint32_t *lens, size_t n)
{
	if (n == 0)
		return 0;
	struct want *w = xcalloc(n, sizeof(*w));
	size_t nw = 0;
	/* a copy is never read over again: a range whose start is held is left to the reads (which
	 * take the held bytes from the copy), and one that runs into a held range stops there */
	for (size_t i = 0; i < n; i++) {
		if (!lens[i] || memsnap_find(s, addrs[i], 1) || on_bad_page(s, addrs[i], lens[i]))
			continue;
		uint64_t end = addrs[i] + lens[i], next = next_start(s, addrs[i]);
		w[nw++] = (struct want){addrs[i], end < next ? end : next};
	}
	qsort(w, nw, sizeof(*w), cmp_want);
	struct want *g = xcalloc(nw ? nw : 1, sizeof(*g)); /* the merged reads */
	size_t m = 0;
	for (size_t i = 0; i < nw; i++) {
		if (m && w[i].addr <= g[m - 1].end + MERGE_GAP &&
		    (w[i].end - 1) / PAGE == g[m - 1].addr / PAGE && w[i].end <= next_start(s, g[m - 1].addr)) {
			if (w[i].end > g[m - 1].end)
				g[m - 1].end = w[i].end;
			continue;
		}
		g[m++] = w[i];
	}
	struct mem_range *r = xcalloc(m ? m : 1, sizeof(*r));
	size_t *off = xcalloc(m ? m : 1, sizeof(*off));
	size_t want = 0, bytes = 0;
	for (size_t i = 0; i < m; i++) {
		size_t len = (size_t)(g[i].end - g[i].addr);
		if (!reserve(s, bytes + len))
			break;
		r[want] = (struct mem_range){.addr = g[i].addr, .len = len};
		off[want++] = bytes;
		bytes += len;
	}
	/* buffers are assigned after reserving, since reserve may move s->data */
	size_t base = s->used;
	for (size_t i = 0; i < want; i++)
		r[i].buf = s->data + base + off[i];
	if (want) {
		mem_readv(s->backing, r, want);
		s->misses++;
	}
	for (size_t i = 0; i < want; i++) {
		if (r[i].got != r[i].len) {
			note_bad_page(s, r[i].addr, r[i].len);
			continue;
		}
		add_range(s, r[i].addr, r[i].len, base + off[i]);
	}
	s->used = base + bytes;
	/* count the requested ranges that are now held (several may share one read) */
	size_t full = 0;
	for (size_t i = 0; i < nw; i++)
		full += memsnap_find(s, w[i].addr, (size_t)(w[i].end - w[i].addr)) != NULL;
	free(w);
	free(g);
	free(r);
	free(off);
	return full;
}

static void snap_prefetch(struct memsrc *base, const uint64_t *addrs, const uint32_t *lens, size_t n)
{
	memsnap_prefetch((struct memsnap *)base, addrs, lens, n);
}

static ssize_t snap_read(struct memsrc *base, uint64_t addr, void *buf, size_t len)
{
	struct memsnap *s = (struct memsnap *)base;
	const void *p = memsnap_find(s, addr, len);
	if (p) {
		if (s->last_hit >= s->late_from)
			s->late_reads++;
		memcpy(buf, p, len);
		return (ssize_t)len;
	}
	/* Bytes a copy holds are served from it, never read again: the target has run on since (a
	 * read that starts below the stack copied at the stop and ends in it, or the other way
	 * round, must not see the live stack where the copy has the stop's). */
	p = memsnap_find(s, addr, 1);
	uint64_t next = p ? 0 : next_start(s, addr);
	if (p || next - addr < len) {
		size_t head = p ? (size_t)(s->ranges[s->last_hit].addr + s->ranges[s->last_hit].len - addr)
				: (size_t)(next - addr);
		ssize_t got = p ? (ssize_t)head : snap_read(base, addr, buf, head);
		if (p) {
			if (s->last_hit >= s->late_from)
				s->late_reads++;
			memcpy(buf, p, head);
		}
		if (got != (ssize_t)head)
			return got;
		ssize_t rest = snap_read(base, addr + head, (uint8_t *)buf + head, len - head);
		return rest > 0 ? (ssize_t)head + rest : (ssize_t)head;
	}
	if (s->late_from != SIZE_MAX)
		s->late_reads++;
	if (on_bad_page(s, addr, len))
		return -1;
	if (len <= PAGE) {
		/* the next reads are most often other fields of the same object: a remote read costs
		 * the same for a few hundred bytes as for eight, so read ahead within the page (and
		 * short of the next range held) */
		uint64_t page_end = (addr | (PAGE - 1)) + 1;
		size_t ahead = page_end - addr < READ_AHEAD ? (size_t)(page_end - addr) : READ_AHEAD;
		if (next - addr < ahead)
			ahead = (size_t)(next - addr);
		size_t got = memsnap_add(s, addr, len > ahead ? len : ahead);
		if (got) {
			size_t n = got < len ? got : len;
			memcpy(buf, memsnap_find(s, addr, n), n);
			return (ssize_t)n;
		}
		if (len <= ahead) {
			/* the read ahead held these bytes, in the same page: they cannot be read */
			note_bad_page(s, addr, ahead);
			return -1;
		}
	}
	s->misses++;
	return mem_read_some(s->backing, addr, buf, len);
}
