/* test_heap_scan.c — finding a heap from outside: page headers of each layout (V8 <= 11 in the
 * header, 12 shifted, 13+ in the page's metadata) recognised by their reservation, the page
 * allocator found by the pages' agreement when there is no symbol, pages among other memory of a
 * synthetic address space; async generator objects found in page copies by their maps, also when
 * the map lies in a page scanned after them; the builtin table of a stripped binary found through
 * its relocations; /proc/PID/maps's anonymous lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../symtab/maps.h"
#include "../../v8/builtin_ids.h"
#include "../../v8/heap_pages.h"
#include "../../v8/heap_scan.h"
#include "fake_heap.h"

static struct v8_layout layout_for(int major, int minor)
{
	struct v8_metadata md;
	struct v8_layout L;
	v8md_from_pairs(&md, NULL, NULL, 0);
	struct v8_version v = {major, minor, 0, 0};
	v8_layout_resolve(&L, &md, &v);
	v8md_free(&md);
	return L;
}

static void put(uint8_t *buf, int32_t off, uint64_t v)
{
	memcpy(buf + off, &v, 8);
}

enum { ALLOC = 0x5600000, PAGE = 1 << 18 };

/* A page header (and its metadata, V8 >= 13) as V8 of layout L writes it. */
static void make_header(const struct v8_layout *L, uint64_t A, uint64_t meta_addr, uint8_t *hdr, uint8_t *meta,
			uint64_t flags, uint64_t heap)
{
	memset(hdr, 0, HEAP_PAGE_HEADER);
	memset(meta, 0, HEAP_PAGE_HEADER);
	uint8_t *f = hdr;
	if (v8_has(L, L_PAGE_METADATA)) {
		put(hdr, L->v[L_PAGE_METADATA], meta_addr);
		f = meta;
	}
	put(f, L->v[L_PAGE_RESERVATION], ALLOC);
	put(f, L->v[L_PAGE_RESERVATION] + 8, A);
	put(f, L->v[L_PAGE_AREA_START], A + 0x100);
	put(f, L->v[L_PAGE_AREA_END], A + PAGE);
	put(f, L->v[L_PAGE_HEAP], heap);
	put(hdr, L->v[L_PAGE_FLAGS], flags);
}

Test(heap_pages, every_layout_decodes_its_own_header)
{
	static const int versions[][2] = {{9, 4}, {11, 3}, {12, 4}, {13, 6}, {14, 6}};
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct v8_layout L = layout_for(versions[i][0], versions[i][1]);
		uint8_t hdr[HEAP_PAGE_HEADER], meta[HEAP_PAGE_HEADER];
		uint64_t A = 0x3441380000;
		make_header(&L, A, 0x41000000, hdr, meta, 1u << 3, 0x4242);
		const uint8_t *m = v8_has(&L, L_PAGE_METADATA) ? meta : NULL;
		cr_assert_eq(heap_page_allocator(&L, A, hdr, m), ALLOC, "V8 %d.%d", versions[i][0], versions[i][1]);
		struct heap_page p;
		cr_assert(heap_page_decode(&L, A, hdr, m, ALLOC, PAGE, &p));
		cr_assert_eq(p.area_start, A + 0x100);
		cr_assert_eq(p.area_end, A + PAGE);
		cr_assert_eq(p.heap, 0x4242);
		cr_assert(heap_page_is_from_space(&L, &p));
		/* another address, another allocator, an area outside the page: not a page */
		cr_assert_eq(heap_page_allocator(&L, A + PAGE, hdr, m), 0);
		cr_assert_not(heap_page_decode(&L, A, hdr, m, ALLOC + 8, PAGE, &p));
		cr_assert_not(heap_page_decode(&L, A, hdr, m, ALLOC, PAGE - 0x1000, &p));
		v8_layout_free(&L);
	}
}

/* A flat memory source over one buffer at `base`. */
struct flat {
	struct memsrc base;
	uint64_t at;
	uint8_t *mem;
	size_t len;
};

static ssize_t flat_read(struct memsrc *m, uint64_t addr, void *buf, size_t len)
{
	struct flat *f = (struct flat *)m;
	if (addr < f->at || addr >= f->at + f->len)
		return -1;
	size_t n = f->at + f->len - addr < len ? (size_t)(f->at + f->len - addr) : len;
	memcpy(buf, f->mem + (addr - f->at), n);
	return (ssize_t)n;
}

static const struct memsrc_ops flat_ops = {.read = flat_read};

Test(heap_pages, pages_among_other_memory_and_the_allocator_by_vote)
{
	struct v8_layout L = layout_for(11, 3);
	struct flat f = {.base.ops = &flat_ops, .at = 0x100000000ull, .len = 6 * PAGE};
	f.mem = calloc(1, f.len);
	uint8_t meta[HEAP_PAGE_HEADER];
	/* pages 0, 1, 3 and 5 (1 the inactive young half); 2 holds garbage; 4 another "allocator" */
	int pages[] = {0, 1, 3, 5};
	for (int i = 0; i < 4; i++)
		make_header(&L, f.at + (uint64_t)pages[i] * PAGE, 0, f.mem + (size_t)pages[i] * PAGE, meta,
			    pages[i] == 1 ? 1u << 3 : 4, 0x77);
	memset(f.mem + 2 * PAGE, 0xab, 512);
	make_header(&L, f.at + 4 * PAGE, 0, f.mem + 4 * PAGE, meta, 4, 0x77);
	put(f.mem + 4 * PAGE, L.v[L_PAGE_RESERVATION], ALLOC + 0x100);
	struct addrspace as;
	addrspace_init(&as, 0, "");
	struct mapping m = {.start = f.at - 0x1000, .end = f.at + f.len, .prot = MAP_R | MAP_W};
	maps_add(&as.maps, &m);
	struct v8_heap h = {.mem = &f.base, .L = &L};
	struct heap_page_list pl;
	heap_pages_find(&h, &as, 0, 1024, &pl);
	cr_assert_eq(pl.allocator, ALLOC);
	cr_assert_eq(pl.n, 4);
	cr_assert_eq(pl.v[1].addr, f.at + PAGE);
	cr_assert(heap_page_is_from_space(&L, &pl.v[1]));
	cr_assert_eq(pl.v[2].addr, f.at + 3 * PAGE);
	heap_page_list_free(&pl);
	/* at most 2 pages: the list says it is partial */
	heap_pages_find(&h, &as, ALLOC, 2, &pl);
	cr_assert_eq(pl.n, 2);
	cr_assert(pl.capped);
	heap_page_list_free(&pl);
	/* a file mapping is not looked at */
	free(as.maps.v[0].path);
	as.maps.v[0].path = strdup("/usr/lib/libfoo.so");
	heap_pages_find(&h, &as, ALLOC, 1024, &pl);
	cr_assert_eq(pl.n, 0);
	heap_page_list_free(&pl);
	addrspace_free(&as);
	free(f.mem);
	v8_layout_free(&L);
}

/* A generator-shaped object at word i of buf (address at + 8 i) with map `map`. */
static void word(uint8_t *buf, size_t i, uint64_t v)
{
	memcpy(buf + 8 * i, &v, 8);
}

static void generator(const struct v8_layout *L, uint8_t *buf, size_t i, uint64_t map, int cont)
{
	word(buf, i, map);
	word(buf, i + 2, 0x9201); /* elements */
	word(buf, i + (size_t)L->v[L_JSGEN_FUNCTION] / 8, 0x9001);
	word(buf, i + (size_t)L->v[L_JSGEN_CONTEXT] / 8, 0x9101);
	word(buf, i + (size_t)L->v[L_JSGEN_RESUME_MODE] / 8, 0);
	word(buf, i + (size_t)L->v[L_JSGEN_CONTINUATION] / 8, (uint64_t)(int64_t)cont << 32);
	word(buf, i + (size_t)L->v[L_JSGEN_REGISTERS] / 8, 0x9301);
}

Test(heap_scan, objects_found_by_their_shape_then_their_maps)
{
	struct v8_layout L = layout_for(11, 3);
	uint64_t a1 = 0x200000100;
	uint8_t p1[4096] = {0};
	uint64_t fn_map = 0x300000101, other_map = 0x300000201;
	generator(&L, p1, 4, fn_map, 0);     /* suspended */
	generator(&L, p1, 40, fn_map, -2);   /* running: found; the caller tells */
	generator(&L, p1, 80, other_map, 0); /* another type's map */
	word(p1, 120, fn_map);               /* a reference to the map, not an object */
	generator(&L, p1, 160, fn_map, 3);
	word(p1, 160 + (size_t)L.v[L_JSGEN_RESUME_MODE] / 8, (uint64_t)7 << 32); /* resume mode 7: not one */
	generator(&L, p1, 500, fn_map, 3);   /* too close to the end: cut */
	struct heap_scan s;
	heap_scan_init(&s, &L, 1000);
	heap_scan_buffer(&s, a1, p1, 500 * 8 + 40);
	uint64_t maps[8];
	size_t nm = heap_scan_maps(&s, maps, 8);
	cr_assert_eq(nm, 2, "the distinct map words of the shaped candidates: %zu (%zu candidates)", nm, s.ncand);
	uint64_t out[16];
	cr_assert_eq(heap_scan_objects(&s, out, 16), 0, "no map known yet");
	heap_scan_keep_maps(&s, &fn_map, 1);
	size_t n = heap_scan_objects(&s, out, 16);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0], a1 + 32);
	cr_assert_eq(out[1], a1 + 320);
	/* a second pass, maps known: objects of those maps only */
	heap_scan_restart_known(&s);
	heap_scan_buffer(&s, a1, p1, sizeof(p1));
	cr_assert_eq(heap_scan_objects(&s, out, 16), 3);
	heap_scan_free(&s);
	/* a bounded number of candidates */
	heap_scan_init(&s, &L, 1);
	heap_scan_buffer(&s, a1, p1, sizeof(p1));
	cr_assert(s.cand_overflow);
	cr_assert_eq(s.ncand, 1);
	heap_scan_free(&s);
	v8_layout_free(&L);
}

/* names of a stripped binary's .rodata, at 0x9000 + 64 * i */
static bool fake_name_at(void *ctx, uint64_t vaddr, char *buf, size_t cap)
{
	const char *const *names = ctx;
	if (vaddr < 0x9000 || (vaddr - 0x9000) % 64 || (vaddr - 0x9000) / 64 >= 5)
		return false;
	snprintf(buf, cap, "%s", names[(vaddr - 0x9000) / 64]);
	return true;
}

static void rela(uint8_t *buf, size_t i, uint64_t off, uint32_t type, uint64_t addend)
{
	uint64_t info = type;
	memcpy(buf + 24 * i, &off, 8);
	memcpy(buf + 24 * i + 8, &info, 8);
	memcpy(buf + 24 * i + 16, &addend, 8);
}

Test(builtin_ids, a_table_found_through_its_relocations)
{
	static const char *const names[] = {"RecordWrite", "AsyncFunctionAwaitResolveClosure",
					    "PromiseAllResolveElementClosure", "not a name!", "Abort"};
	uint8_t buf[24 * 8];
	/* entries 0x5000 + 24 i name builtins 0..2; the entry after them a string that is not a
	 * name; an unrelated relocation; one of another type */
	for (int i = 0; i < 4; i++)
		rela(buf, (size_t)i, 0x5000 + 24 * (uint64_t)(3 - i), 8, 0x9000 + 64 * (uint64_t)(3 - i));
	rela(buf, 4, 0x7000, 8, 0x9000 + 64 * 4);
	rela(buf, 5, 0x5000 - 24, 6 /* GLOB_DAT */, 0x9000 + 64 * 4);
	struct reloc_table r;
	reloc_table_parse(&r, buf, 24 * 6);
	cr_assert_eq(r.n, 5);
	uint64_t a;
	cr_assert(reloc_table_at(&r, 0x5000 + 24, &a));
	cr_assert_eq(a, 0x9000 + 64);
	uint64_t start;
	size_t n = builtin_table_extent(&r, 0x5000 + 24, fake_name_at, (void *)names, 100, &start);
	cr_assert_eq(n, 3);
	cr_assert_eq(start, 0x5000);
	cr_assert_eq(builtin_table_extent(&r, 0x5000 + 72, fake_name_at, (void *)names, 100, &start), 0);
	reloc_table_free(&r);
	struct builtin_ids ids = {0};
	builtin_ids_from_names(&ids, names, 5);
	cr_assert_eq(builtin_ids_kind(&ids, 1), AB_AWAIT);
	cr_assert_eq(builtin_ids_kind(&ids, 2), AB_ALL_RESOLVE);
	cr_assert_eq(builtin_ids_kind(&ids, 0), AB_NONE);
	cr_assert_eq(builtin_ids_kind(&ids, 5), AB_NONE);
	cr_assert_eq(builtin_ids_kind(&ids, -1), AB_NONE);
	builtin_ids_free(&ids);
}

Test(maps, an_anonymous_mapping_has_no_path)
{
	struct maps m;
	maps_init(&m);
	size_t n = maps_parse("565d000-5689000 rw-p 00000000 00:00 0 \n"
			      "417f2000-41aff000 rw-p 00000000 00:00 0                                  [heap]\n"
			      "7f0000000000-7f0000001000 r-xp 00001000 08:01 1234 /usr/lib/libc.so.6\n"
			      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0\n",
			      &m);
	cr_assert_eq(n, 4);
	cr_assert_null(m.v[0].path);
	cr_assert_str_eq(m.v[1].path, "[heap]");
	cr_assert_str_eq(m.v[2].path, "/usr/lib/libc.so.6");
	cr_assert_null(m.v[3].path);
	maps_free(&m);
}
