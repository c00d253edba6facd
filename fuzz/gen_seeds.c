/* gen_seeds.c — writes the generated seed inputs of the fuzz harnesses into DIR/NAME/: synthetic
 * heaps holding every string representation, functions with ScopeInfo and Script, deoptimization
 * data and BytecodeArrays (v8_heap); source position and baseline tables (v8_tables); cores with
 * every note the reader knows (core); an eBPF sample record with a frame-pointer chain
 * (sample_record); a hand-encoded .eh_frame (cfi); perf records of a thread's switch into its stop
 * (switch_record). Real inputs are committed in fuzz/corpus/. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/perf_event.h>

#include "../bpf/sample_record.h"
#include "../tests/unit/core_builder.h"
#include "heap_input.h"

struct out {
	const char *dir;
	char path[4096];
};

static void write_seed(struct out *o, const char *name, const char *file, const void *a, size_t an,
		       const void *b, size_t bn)
{
	snprintf(o->path, sizeof(o->path), "%s/%s", o->dir, name);
	if (mkdir(o->path, 0755) != 0 && errno != EEXIST) {
		perror(o->path);
		exit(1);
	}
	snprintf(o->path, sizeof(o->path), "%s/%s/%s", o->dir, name, file);
	FILE *f = fopen(o->path, "wb");
	if (!f || fwrite(a, 1, an, f) != an || (bn && fwrite(b, 1, bn, f) != bn) || fclose(f) != 0) {
		perror(o->path);
		exit(1);
	}
}

/* ---- v8_heap: the region as built, with a header naming the object and the op ---- */

static void heap_seed_for(struct out *o, const char *harness, struct fake_heap *fh, const char *file,
			  uint32_t op, uint64_t root, uint64_t aux, int64_t num)
{
	uint64_t base = heap_input_region(fh);
	struct heap_input_header hd = {.root = (uint32_t)(root - base), .aux = (uint32_t)(aux - base),
				       .aux2 = 0, .op = op, .num = num};
	write_seed(o, harness, file, &hd, sizeof(hd), fh->mem + (base - fh->start),
		   fh->start + fh->used - base);
	/* zeroed for the next seed: fake_heap's builders leave some bytes as they find them */
	memset(fh->mem + (base - fh->start), 0, fh->start + fh->used - base);
	heap_input_load(fh, NULL, 0);
}

static void heap_seed(struct out *o, struct fake_heap *fh, const char *file, uint32_t op,
		      uint64_t root, uint64_t aux, int64_t num)
{
	heap_seed_for(o, "v8_heap", fh, file, op, root, aux, num);
}

static uint64_t byte_array(struct fake_heap *fh, const void *data, size_t n)
{
	uint64_t a = fh_obj(fh, HI_T_BYTE_ARRAY, 16 + n);
	fh_set(fh, a, 8, fh_smi((int64_t)n));
	memcpy(fh_ptr(fh, a - 1 + 16), data, n);
	return a;
}

static uint64_t script(struct fake_heap *fh)
{
	uint64_t s = fh_obj(fh, FT_SCRIPT, 128);
	fh_set(fh, s, 8, fh_str1(fh, "'use strict';\n\nfunction leaf(a) {\n  return a;\n}\n"));
	fh_set(fh, s, 16, fh_str1(fh, "/srv/app.js"));
	fh_set(fh, s, 56, fh_smi(0));
	return s;
}

/* ScopeInfo (V8 < 12.8): flags, nparams, nlocals, function name and slot, inferred, start, end */
static uint64_t scope_info(struct fake_heap *fh, uint64_t fname, uint64_t inferred)
{
	uint64_t si = fh_obj(fh, FT_SCOPE_INFO, 8 + 8 * 10);
	fh_set(fh, si, 8, fh_smi(2 | 1 << 12 | 1 << 14));
	fh_set(fh, si, 16, fh_smi(1));
	fh_set(fh, si, 24, fh_smi(0));
	fh_set(fh, si, 32, fname);
	fh_set(fh, si, 40, fh_smi(-1));
	fh_set(fh, si, 48, inferred);
	fh_set(fh, si, 56, fh_smi(24));
	fh_set(fh, si, 64, fh_smi(48));
	return si;
}

static uint64_t function(struct fake_heap *fh, uint64_t *sfi_out)
{
	uint64_t sfi = fh_obj(fh, FT_SFI, 64);
	fh_set(fh, sfi, 16, scope_info(fh, fh_str1(fh, "leaf"), fh_str1(fh, "o.leaf")));
	fh_set(fh, sfi, 32, script(fh));
	int16_t token = 9;
	memcpy(fh_ptr(fh, sfi - 1 + 44), &token, 2);
	uint64_t fn = fh_obj(fh, FT_JSFUNCTION, 64);
	fh_set(fh, fn, 24, sfi);
	*sfi_out = sfi;
	return fn;
}

static void heap_seeds(struct out *o)
{
	struct fake_heap fh;
	heap_input_init(&fh);
	static const uint16_t two[] = {0x65e5, 0x672c, 0xd83d, 0xde00, 'x', 0xd800};
	uint64_t s = fh_str2(&fh, two, 6);
	heap_seed(o, &fh, "string-two-byte", 0, s, 0, 0);
	s = fh_cons(&fh, fh_str1(&fh, "Module."), fh_thin(&fh, fh_str1(&fh, "_compile")));
	heap_seed(o, &fh, "string-cons-thin", 0, s, 0, 0);
	s = fh_sliced(&fh, fh_str1(&fh, "xxhelloyy"), 2, 5);
	heap_seed(o, &fh, "string-sliced", 1, s, 0, 1);
	s = fh_external(&fh, "external", 8, false, false);
	heap_seed(o, &fh, "string-external", 0, s, 0, 0);
	s = fh_external(&fh, u"ext\u00e9", 4, true, false);
	heap_seed(o, &fh, "string-external-two-byte", 1, s, 0, 0);
	s = fh_external(&fh, "uncached", 8, false, true);
	heap_seed(o, &fh, "string-uncached", 0, s, 0, 0);
	uint64_t sfi, fn = function(&fh, &sfi);
	heap_seed(o, &fh, "jsfunction", 2, fn, 0, 30);
	fn = function(&fh, &sfi);
	heap_seed(o, &fh, "sfi", 3, sfi, 0, 30);
	s = scope_info(&fh, fh_str1(&fh, "f"), fh_str1(&fh, "a.b.f"));
	heap_seed(o, &fh, "scope-info", 4, s, 0, 0);
	s = script(&fh);
	heap_seed(o, &fh, "script", 5, s, 0, 33);
	/* deoptimization data: outer inlined a (literal 0) at 500 */
	uint64_t outer = fh_obj(&fh, FT_SFI, 64), a = fh_obj(&fh, FT_SFI, 64);
	uint64_t deopt = fh_obj(&fh, FT_FIXED_ARRAY, 16 + 8 * 10);
	fh_set(&fh, deopt, 8, fh_smi(10));
	uint64_t lits = fh_obj(&fh, HI_T_WEAK_FIXED_ARRAY, 16 + 8);
	fh_set(&fh, lits, 8, fh_smi(1));
	fh_set(&fh, lits, 16, a | 2);
	struct {
		uint64_t position;
		int32_t function_id, pad;
	} rec = {(uint64_t)(500 + 1) << 1, 0, 0};
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_INLINED_COUNT], fh_smi(1));
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_LITERALS], lits);
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_SFI], outer);
	fh_set(&fh, deopt, 16 + 8 * fh.L.v[L_DEOPT_INLINING_POS], byte_array(&fh, &rec, sizeof(rec)));
	heap_seed(o, &fh, "deopt-data", 6, deopt, 0, (int64_t)((43u << 1) | (1ull << 31)));
	/* an interpreted frame: BytecodeArray (length 8, table at L_BCA_SPT, bytecodes at 54) */
	static const uint8_t table[] = {0x02, 0x90, 0x17, 0x07, 0x44, 0x0f, 0x14,
					0x13, 0x20, 0x0e, 0x1c, 0x13, 0x28};
	for (int op = 7; op <= 8; op++) {
		uint64_t bca = fh_obj(&fh, HI_T_BCA, 54 + 16);
		fh_set(&fh, bca, 8, fh_smi(16));
		fh_set(&fh, bca, fh.L.v[L_BCA_SPT], byte_array(&fh, table, sizeof(table)));
		fn = function(&fh, &sfi);
		heap_seed(o, &fh, op == 7 ? "bytecode-array" : "interpreted-frame", (uint32_t)op,
			  op == 7 ? bca : fn, bca, (int64_t)fh_smi(7 + 53));
	}
	fh_free(&fh);
}

/* ---- v8_tables ---- */

static void table_seeds(struct out *o)
{
	static const uint8_t packed[] = {0x02, 0x90, 0x17, 0x07, 0x44, 0x0f, 0x14,
					 0x13, 0x20, 0x0e, 0x1c, 0x13, 0x28};
	uint8_t hd[8] = {7, 0, 0, 0, 1, 0, 0, 0}; /* probe offset 7, packed */
	write_seed(o, "v8_tables", "spt-packed", hd, 8, packed, sizeof(packed));
	static const uint8_t signed_tab[] = {0x00, 0x28, 0x0a, 0x14, 0x09, 0x2a};
	hd[4] = 0;
	write_seed(o, "v8_tables", "spt-signed", hd, 8, signed_tab, sizeof(signed_tab));
	/* baseline: sizes of 3 opcodes × 3 scales, a pc → offset table, then bytecodes */
	static const uint8_t base[] = {1, 2, 3, 1, 3, 5, 1, 5, 9, 10, 6, 12, 4, 0, 0, 1, 2, 1, 2, 2};
	hd[0] = 17, hd[4] = 3, hd[5] = 1;
	write_seed(o, "v8_tables", "baseline", hd, 8, base, sizeof(base));
	uint8_t maglev[32] = {0};
	maglev[0] = 1, maglev[4] = 4, maglev[8] = 1;
	hd[4] = 2;
	write_seed(o, "v8_tables", "maglev-safepoints", hd, 8, maglev, sizeof(maglev));
}

/* ---- core ---- */

static void core_seeds(struct out *o)
{
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 4242, 11, 0x401000, 0x7ffd0000);
	cb_thread(&b, 4243, 0, 0x401010, 0x7ffe0000);
	cb_siginfo(&b, 11);
	cb_psinfo(&b, 4242, "node");
	/* an ELF header with a build-id note at the start of the first file mapping */
	static uint8_t elf[512];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)elf;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN, eh->e_machine = ARCH_ELF_MACHINE, eh->e_phoff = 64;
	eh->e_phentsize = sizeof(Elf64_Phdr), eh->e_phnum = 1;
	Elf64_Phdr *ph = (Elf64_Phdr *)(elf + 64);
	ph->p_type = PT_NOTE, ph->p_offset = 128, ph->p_vaddr = 128, ph->p_filesz = 16 + 8;
	uint32_t note[4] = {4, 8, NT_GNU_BUILD_ID, 0};
	memcpy(&note[3], "GNU", 4);
	memcpy(elf + 128, note, 16);
	memcpy(elf + 144, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
	struct cb_file files[] = {{0x400000, 0x402000, 0, "/usr/bin/node"},
				  {0x7f0000000000, 0x7f0000001000, 2, "/lib/x86_64-linux-gnu/libc.so.6"}};
	cb_files(&b, files, 2);
	uint64_t auxv[] = {3, 0x400040, 9, 0x401000, 0, 0};
	cb_auxv(&b, auxv, 3);
	cb_load(&b, 0x400000, 0x2000, PF_R | PF_X, elf, sizeof(elf));
	static uint8_t stack[4096];
	memset(stack, 0x41, sizeof(stack));
	cb_load(&b, 0x7ffd0000 - 0x800, 0x1000, PF_R | PF_W, stack, sizeof(stack));
	cb_load(&b, 0x7f0000000000, 0x1000, PF_R, NULL, 0);
	snprintf(o->path, sizeof(o->path), "%s/core", o->dir);
	mkdir(o->path, 0755);
	snprintf(o->path, sizeof(o->path), "%s/core/two-threads-build-id", o->dir);
	cb_write(&b, o->path);
	cb_free(&b);
}

/* ---- sample_record: a frame-pointer chain of three frames, as the kernel captures it ---- */

static void sample_seeds(struct out *o, const struct fake_heap *fh)
{
	static uint8_t stack[16384];
	uint64_t lo = fh->start + 80, sp = lo + 1024, f1 = lo + 1536, f2 = lo + 6144, f3 = lo + 12288;
	uint64_t *s = (uint64_t *)stack;
	s[(f1 - lo) / 8] = f2, s[(f1 - lo) / 8 + 1] = 0x7000101;
	s[(f2 - lo) / 8] = f3, s[(f2 - lo) / 8 + 1] = 0x7000202;
	s[(f3 - lo) / 8] = 0, s[(f3 - lo) / 8 + 1] = 0x7000303;
	static struct {
		struct v8w_record r;
		uint8_t mem[V8W_MEM_MAX];
	} rec;
	memset(&rec, 0, sizeof(rec));
	rec.r.type = V8W_REC_SAMPLE;
	rec.r.regs[ARCH_PRSTATUS_PC] = 0x7000010, rec.r.regs[ARCH_PRSTATUS_SP] = sp, rec.r.regs[ARCH_PRSTATUS_FP] = f1;
	size_t len = 0;
	const struct {
		uint64_t addr;
		uint32_t len, kind;
	} ranges[] = {{sp, 1024, V8W_RANGE_TOP},
		      {f2 - V8W_SLOTS_BELOW_FP, V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP, V8W_RANGE_FRAME},
		      {f3 - V8W_SLOTS_BELOW_FP, V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP, V8W_RANGE_FRAME}};
	for (size_t i = 0; i < 3; i++) {
		struct v8w_range h = {.addr = ranges[i].addr, .len = ranges[i].len, .kind = ranges[i].kind};
		memcpy(rec.mem + len, &h, sizeof(h));
		memcpy(rec.mem + len + sizeof(h), stack + (h.addr - lo), h.len);
		len += sizeof(h) + ((h.len + 7) & ~7u);
	}
	rec.r.mem_len = (uint32_t)len;
	/* the bytes after the record are both the captured ranges and (harness) the live stack */
	write_seed(o, "sample_record", "three-frames", &rec.r, sizeof(rec.r), rec.mem, len);
	memcpy(rec.mem, stack, sizeof(stack));
	rec.r.mem_len = 0;
	write_seed(o, "sample_record", "live-stack-only", &rec.r, sizeof(rec.r), rec.mem, sizeof(stack));
}

/* ---- switch_record: the newest record of a ring, a sample of 256 stack bytes of which 200 were
 * copied, as the kernel writes them for ptrace/switch_copy.c, an older lost record after it (the
 * harness's first byte sets where it starts: 0x9c makes the sample wrap around the end of the
 * harness's 512-byte ring) ---- */

static void switch_seeds(struct out *o)
{
	static uint8_t b[1 + 24 + 8 + 56 + 256 + 8];
	size_t n = 0;
	b[n++] = 0x9c;
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = (uint16_t)(sizeof(b) - n - 24)};
	memcpy(b + n, &h, sizeof(h));
	n += sizeof(h);
	uint64_t v[] = {(uint64_t)4242 << 32 | 4240, 123456789, PERF_SAMPLE_REGS_ABI_64, 0x7ffd0040,
			0x7ffd0000, 0x401000, 256};
	memcpy(b + n, v, sizeof(v));
	n += sizeof(v);
	for (int i = 0; i < 256; i++)
		b[n++] = (uint8_t)i;
	uint64_t dyn = 200;
	memcpy(b + n, &dyn, 8);
	n += 8;
	struct perf_event_header lost = {.type = PERF_RECORD_LOST, .size = 24};
	memcpy(b + n, &lost, sizeof(lost));
	write_seed(o, "switch_record", "sample-then-older-lost", b, sizeof(b), NULL, 0);
}

/* ---- cfi: one CIE (CFA = rsp + 8, return address at CFA - 8) and an FDE with push rbp ---- */

static void cfi_seeds(struct out *o)
{
	static const uint8_t eh[] = {
	    /* CIE: length, id 0, version 1, "zR", code align 1, data align -8, RA 16,
	     * augmentation data: pcrel|sdata4; def_cfa rsp+8; offset r16 at cfa-8 */
	    0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 0x07, 0x08,
	    0x90, 0x01, 0, 0,
	    /* FDE: length, CIE pointer, pc begin (pcrel: 0x1000 - here), range 0x40,
	     * aug 0; advance 1; def_cfa_offset 16; offset rbp at cfa-16; advance 3;
	     * def_cfa_register rbp */
	    0x1c, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0x41, 0x0e, 0x10, 0x86, 0x02,
	    0x43, 0x0d, 0x06, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0}; /* terminator */
	uint8_t copy[sizeof(eh)];
	memcpy(copy, eh, sizeof(eh));
	uint64_t eh_vaddr = 0x2000;
	int32_t pcrel = (int32_t)(0x1000 - (int64_t)(eh_vaddr + 24 + 8));
	memcpy(copy + 24 + 8, &pcrel, 4);
	uint64_t hd[4] = {eh_vaddr, 0x1010, 0x7ffd0000, 0x7ffd0100};
	write_seed(o, "cfi", "push-rbp", hd, sizeof(hd), copy, sizeof(copy));
	hd[1] = 0x1000;
	write_seed(o, "cfi", "entry", hd, sizeof(hd), copy, sizeof(copy));
}

/* ---- async: an await chain (fuzz_async.c's types and builtin ids), a page header, a page ---- */

static uint64_t async_closure(struct fake_heap *fh, int id, uint64_t ctx)
{
	uint64_t sfi = fh_obj(fh, FT_SFI, 64);
	fh_set(fh, sfi, 8, fh_smi(id));
	uint64_t f = fh_obj(fh, FT_JSFUNCTION, 64);
	fh_set(fh, f, 24, sfi);
	fh_set(fh, f, 32, ctx);
	return f;
}

/* an async function's generator (Node 20 layout) with its promise */
static uint64_t async_generator(struct fake_heap *fh, int cont, uint64_t *promise)
{
	uint64_t g = fh_obj(fh, 2106, 88);
	*promise = fh_obj(fh, 2063, 48);
	fh_set(fh, *promise, 24, fh_smi(0));
	fh_set(fh, *promise, 32, fh_smi(4));
	fh_set(fh, g, 24, async_closure(fh, -1, 0));
	fh_set(fh, g, 48, fh_smi(83));
	fh_set(fh, g, 64, fh_smi(cont));
	fh_set(fh, g, 80, *promise);
	return g;
}

static void async_seeds(struct out *o)
{
	struct fake_heap fh;
	heap_input_init(&fh);
	uint64_t p1, p2;
	uint64_t running = async_generator(&fh, -2, &p1);
	uint64_t awaiting = async_generator(&fh, 0, &p2);
	uint64_t ctx = fh_obj(&fh, FT_FIXED_ARRAY, 16 + 24);
	fh_set(&fh, ctx, 8, fh_smi(3));
	fh_set(&fh, ctx, 32, awaiting);
	uint64_t r = fh_obj(&fh, 163, 48);
	fh_set(&fh, r, 8, fh_smi(0));
	fh_set(&fh, r, 16, async_closure(&fh, 0, ctx));
	fh_set(&fh, r, 24, async_closure(&fh, 0, ctx));
	fh_set(&fh, p1, 24, r);
	heap_seed_for(o, "async", &fh, "await-chain", 1, running, 0, 0);
	uint8_t page[256] = {0};
	uint64_t A = 0x3441380000, alloc = 0x566a2f0, start = A + 0x100, end = A + (1 << 18);
	memcpy(page + 8, (uint64_t[]){4}, 8);
	memcpy(page + 24, &start, 8);
	memcpy(page + 32, &end, 8);
	memcpy(page + 72, &alloc, 8);
	memcpy(page + 80, &A, 8);
	struct heap_input_header hd = {.op = 2, .num = (int64_t)A};
	write_seed(o, "async", "page-header", &hd, sizeof(hd), page, sizeof(page));
	fh_free(&fh);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	struct out o = {.dir = argv[1]};
	if (mkdir(o.dir, 0755) != 0 && errno != EEXIST) {
		perror(o.dir);
		return 1;
	}
	struct fake_heap fh;
	heap_input_init(&fh);
	sample_seeds(&o, &fh);
	fh_free(&fh);
	heap_seeds(&o);
	table_seeds(&o);
	core_seeds(&o);
	cfi_seeds(&o);
	switch_seeds(&o);
	async_seeds(&o);
	return 0;
}
