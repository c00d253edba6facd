/* fuzz_sample_record.c — libFuzzer harness: one eBPF sample record (bpf/sample_walk.c) as the
 * ring buffer hands it over (struct v8w_record, then mem_len bytes of ranges), walked by the real
 * stack walker over a small address space (JIT-like code, a stack) whose "live" memory is a
 * synthetic heap. */
#include <string.h>

#include "../bpf/sample_walk.h"
#include "heap_input.h"

enum { CODE = 0x7000000, STACK_SIZE = 65536 };

struct world {
	struct fake_heap fh;
	struct intern names;
	struct addrspace as;
	struct stackwalk sw;
	struct sample_walker w;
};

static void add_mapping(struct addrspace *as, uint64_t start, uint64_t end, uint32_t prot,
			const char *path)
{
	struct mapping m = {.start = start, .end = end, .prot = prot, .path = (char *)path};
	maps_add(&as->maps, &m);
}

static void world_init(struct world *x)
{
	heap_input_init(&x->fh);
	intern_init(&x->names);
	uint64_t lo = x->fh.start, hi = x->fh.start + x->fh.size;
	addrspace_init(&x->as, 0, "");
	add_mapping(&x->as, CODE, CODE + 0x100000, MAP_R | MAP_X, NULL);
	add_mapping(&x->as, lo, hi, MAP_R | MAP_W, "[stack]");
	maps_sort(&x->as.maps);
	addrspace_index(&x->as);
	stackwalk_init(&x->sw, &x->as, NULL, &x->names, false);
	sample_walker_init(&x->w, &x->sw, &x->as, 0);
	x->w.fence.backing = &x->fh.base;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct world x;
	static bool ready;
	if (!ready) {
		world_init(&x);
		ready = true;
	}
	struct v8w_record rec;
	if (size < sizeof(rec))
		return 0;
	memcpy(&rec, data, sizeof(rec));
	const uint8_t *mem = data + sizeof(rec);
	size_t mem_len = size - sizeof(rec);
	/* the live memory: a stack's worth of the input (so frames reach past the captured ranges) */
	heap_input_load(&x.fh, mem, mem_len < STACK_SIZE ? mem_len : STACK_SIZE);
	if (rec.mem_len < mem_len)
		mem_len = rec.mem_len;
	static struct frame out[STACKWALK_MAX_FRAMES];
	struct walk_stats st;
	int n = sample_walk(&x.w, &rec, mem, mem_len, out, STACKWALK_MAX_FRAMES, &st);
	if (n > 0)
		stackwalk_name_natives(&x.sw, out, n);
	return 0;
}
