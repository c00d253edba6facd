/* fuzz_async.c — libFuzzer harness: what --async and --pending decode from a target's memory.
 * The input's header picks the decoder: an await chain followed over a synthetic heap
 * (heap_input.h) from a promise or a generator, its trail read again; a page header (and its
 * metadata) of each V8 layout; a page's object area scanned for async generator objects by map
 * (the fuzzer's bytes are the page copy). */
#include <stdlib.h>
#include <string.h>

#include "../v8/async_chain.h"
#include "../v8/heap_pages.h"
#include "../v8/heap_scan.h"
#include "heap_input.h"

/* instance types for the async objects (Node 20's numbers) */
enum { T_ASYNC_FN = 2106, T_ASYNC_GEN = 2107, T_PROMISE = 2063, T_REACTION = 163, T_CAPABILITY = 161,
       T_REQUEST = 148 };

static void async_types(struct v8_layout *L)
{
	fh_set_item(L, L_T_JS_ASYNC_FUNCTION_OBJECT, T_ASYNC_FN);
	fh_set_item(L, L_T_JS_ASYNC_GENERATOR_OBJECT, T_ASYNC_GEN);
	fh_set_item(L, L_T_JS_PROMISE, T_PROMISE);
	fh_set_item(L, L_T_PROMISE_REACTION, T_REACTION);
	fh_set_item(L, L_T_PROMISE_CAPABILITY, T_CAPABILITY);
	fh_set_item(L, L_T_ASYNC_GENERATOR_REQUEST, T_REQUEST);
}

static void walk_chain(struct fake_heap *fh, const struct builtin_ids *ids, uint64_t root, bool from_generator)
{
	struct async_trail t = {.n = 0};
	struct u64map kinds;
	u64map_init(&kinds, 64);
	struct async_walk w = {.h = &fh->h, .ids = ids, .sfi_kinds = &kinds, .trail = &t};
	struct async_frame f[16];
	enum async_end end;
	if (from_generator) {
		async_generator_state(&w, root);
		async_generator_frame(&w, root, &f[0]);
		async_chain_of_generator(&w, root, f, 16, &end);
	} else {
		async_chain_from_promise(&w, root, f, 16, &end);
	}
	async_trail_holds(&t, &fh->base);
	u64map_free(&kinds);
}

static void page_header(const uint8_t *bytes, size_t len, uint64_t A)
{
	static const int versions[][2] = {{9, 4}, {11, 3}, {12, 4}, {13, 6}, {14, 6}};
	uint8_t hdr[HEAP_PAGE_HEADER] = {0}, meta[HEAP_PAGE_HEADER] = {0};
	memcpy(hdr, bytes, len < sizeof(hdr) ? len : sizeof(hdr));
	if (len > sizeof(hdr))
		memcpy(meta, bytes + sizeof(hdr), len - sizeof(hdr) < sizeof(meta) ? len - sizeof(hdr) : sizeof(meta));
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct v8_metadata md;
		struct v8_layout L;
		v8md_from_pairs(&md, NULL, NULL, 0);
		struct v8_version v = {versions[i][0], versions[i][1], 0, 0};
		v8_layout_resolve(&L, &md, &v);
		struct heap_page p;
		uint64_t alloc = heap_page_allocator(&L, A, hdr, meta);
		if (heap_page_decode(&L, A, hdr, meta, alloc, (uint64_t)1 << 30, &p))
			heap_page_is_from_space(&L, &p);
		heap_page_metadata_ptr(&L, hdr);
		v8_layout_free(&L);
		v8md_free(&md);
	}
}

static void scan_page(const struct v8_layout *L, const uint8_t *bytes, size_t len, uint64_t addr, uint64_t map)
{
	struct heap_scan s;
	heap_scan_init(&s, L, 64);
	heap_scan_buffer(&s, addr, bytes, len);
	uint64_t maps[64];
	heap_scan_maps(&s, maps, 64);
	heap_scan_keep_maps(&s, &map, 1);
	/* again with the maps known, as a second pass does */
	heap_scan_restart_known(&s);
	heap_scan_buffer(&s, addr, bytes, len);
	uint64_t out[64];
	heap_scan_objects(&s, out, 64);
	heap_scan_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fake_heap fh;
	static struct builtin_ids ids;
	static bool ready;
	if (!ready) {
		heap_input_init(&fh);
		async_types(&fh.L);
		static const char *const names[] = {"AsyncFunctionAwaitResolveClosure", "PromiseAllResolveElementClosure",
						    "PromiseAllSettledResolveElementClosure",
						    "PromiseAnyRejectElementClosure", "PromiseCapabilityDefaultResolve"};
		builtin_ids_from_names(&ids, names, 5);
		ready = true;
	}
	struct heap_input_header hd;
	if (size < sizeof(hd))
		return 0;
	memcpy(&hd, data, sizeof(hd));
	const uint8_t *body = data + sizeof(hd);
	size_t len = size - sizeof(hd);
	heap_input_load(&fh, body, len);
	uint64_t base = heap_input_region(&fh);
	switch (hd.op % 4) {
	case 0:
		walk_chain(&fh, &ids, base + hd.root, false);
		break;
	case 1:
		walk_chain(&fh, &ids, base + hd.root, true);
		break;
	case 2:
		page_header(body, len, (uint64_t)hd.num & ~(uint64_t)7);
		break;
	case 3:
		scan_page(&fh.L, body, len, base, base + hd.root);
		break;
	}
	return 0;
}
