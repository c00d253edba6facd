/* test_core.c — the core-file reader on synthetic cores: notes (threads, the crashed thread,
 * process, mapped files, auxv), segment reads and truncation, the memory source's fallback to the
 * mapped file for what the core left out (with this test binary as the mapped ELF file), build-ids
 * from the core's copy of a file's first page, mappings the writer omitted (gcore), and the errors
 * for files that are not usable cores. */
#include <criterion/criterion.h>
#include <elf.h>
#include <malloc.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "time_scale.h"
#include "../../postmortem/core_buildid.h"
#include "../../postmortem/core_file.h"
#include "../../postmortem/core_space.h"
#include "../../postmortem/core_target.h"
#include "../../cli/modes.h"
#include "../../cli/options.h"
#include <criterion/redirect.h>
#include "../../postmortem/memsrc_core.h"
#include "core_builder.h"

static char dir[64];
static char self[4096];        /* this test binary: a real ELF file to map */
static struct elf_image *self_img;

static void setup(void)
{
	strcpy(dir, "/tmp/v8walk-unit-core-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0);
	self[n] = 0;
	const char *err = NULL;
	self_img = elf_image_open(self, &err);
	cr_assert_not_null(self_img, "%s", err);
}

static void teardown(void)
{
	elf_image_close(self_img);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(core, .init = setup, .fini = teardown);

static const char *core_path(const char *name)
{
	static char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void open_ok(struct core_file *cf, const char *path)
{
	struct strbuf err;
	sb_init(&err);
	cr_assert(core_file_open(cf, path, &err), "%s", err.s);
	sb_free(&err);
}

static void open_fails(const char *path, const char *want)
{
	struct core_file cf;
	struct strbuf err;
	sb_init(&err);
	cr_assert_not(core_file_open(&cf, path, &err));
	cr_assert(strstr(err.s, want), "'%s' does not say '%s'", err.s, want);
	sb_free(&err);
}

Test(core, notes_threads_process_files_auxv)
{
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 100, 6, 0x401234, 0x7ffd0000);
	cb_psinfo(&b, 100, "node");
	cb_siginfo(&b, 6);
	const struct cb_file files[] = {
	    {0x7f0000000000, 0x7f0000002000, 3, "/lib/libz.so (deleted)"},
	    {0x400000, 0x402000, 0, "/usr/bin/node"},
	};
	cb_files(&b, files, 2);
	const uint64_t auxv[] = {AT_PHDR, 0x400040, AT_ENTRY, 0x401000};
	cb_auxv(&b, auxv, 2);
	cb_thread(&b, 101, 6, 0x7f0000001000, 0x7f0000100000);
	cb_write(&b, core_path("c"));
	struct core_file cf;
	open_ok(&cf, core_path("c"));
	cr_assert_eq(cf.nthreads, 2);
	cr_assert_eq(cf.threads[0].tid, 100);
	cr_assert_eq(cf.threads[0].regs[ARCH_PRSTATUS_PC], 0x401234);
	cr_assert_eq(cf.threads[0].regs[ARCH_PRSTATUS_SP], 0x7ffd0000);
	cr_assert_eq(cf.threads[0].signo, 6);
	cr_assert_eq(cf.threads[1].tid, 101);
	cr_assert_eq(cf.threads[1].signo, 0);
	cr_assert_eq(core_crashed_thread(&cf), &cf.threads[0]);
	cr_assert_eq(cf.pid, 100);
	cr_assert_str_eq(cf.fname, "node");
	cr_assert_eq(cf.files.n, 2);
	cr_assert_str_eq(cf.files.v[0].path, "/usr/bin/node"); /* sorted by address */
	cr_assert_str_eq(cf.files.v[1].path, "/lib/libz.so");
	cr_assert(cf.files.v[1].deleted);
	cr_assert_eq(cf.files.v[1].pgoff, 3 * 4096); /* NT_FILE offsets are in pages */
	cr_assert_eq(maps_find(&cf.files, 0x401fff), &cf.files.v[0]);
	cr_assert_null(maps_find(&cf.files, 0x402000));
	uint64_t v;
	cr_assert(core_auxv(&cf, AT_ENTRY, &v));
	cr_assert_eq(v, 0x401000);
	cr_assert_not(core_auxv(&cf, AT_BASE, &v));
	core_file_close(&cf);
	cb_free(&b);
}

Test(core, gcore_has_no_crashed_thread)
{
	/* gdb's gcore: pr_cursig 0, and a SIGSTOP siginfo for every thread it stopped */
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 200, 0, 1, 2);
	cb_siginfo(&b, 19);
	cb_thread(&b, 201, 0, 1, 2);
	cb_siginfo(&b, 19);
	cb_write(&b, core_path("g"));
	struct core_file cf;
	open_ok(&cf, core_path("g"));
	cr_assert_null(core_crashed_thread(&cf));
	core_file_close(&cf);
	cb_free(&b);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

Test(core, reads_across_segments_and_truncation)
{
	static uint8_t a[0x2000], c[0x1000];
	fill(a, sizeof(a), 1);
	fill(c, sizeof(c), 2);
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 1, 6, 0, 0x10100);
	cb_load(&b, 0x12000, 0x1000, PF_R | PF_W, c, sizeof(c));
	cb_load(&b, 0x10000, 0x2000, PF_R | PF_W, a, sizeof(a));
	size_t size = cb_write(&b, core_path("r"));
	struct core_file cf;
	open_ok(&cf, core_path("r"));
	cr_assert_not(cf.truncated);
	cr_assert_eq(cf.segs[0].vaddr, 0x10000); /* sorted */
	uint8_t buf[0x100];
	/* core_read stays inside one segment */
	cr_assert_eq(core_read(&cf, 0x11f80, buf, sizeof(buf)), 0x80);
	cr_assert_eq(memcmp(buf, a + 0x1f80, 0x80), 0);
	/* the memory source continues into the next segment */
	struct addrspace as;
	core_space_build(&as, &cf, NULL, NULL);
	struct memsrc_core m;
	memsrc_core_init(&m, &cf, &as);
	cr_assert(mem_read(&m.base, 0x11f80, buf, sizeof(buf)));
	cr_assert_eq(memcmp(buf + 0x80, c, 0x80), 0);
	cr_assert_eq(mem_read_some(&m.base, 0x13000, buf, 8), -1); /* unmapped */
	addrspace_free(&as);
	core_file_close(&cf);

	/* cut the file in the middle of the second segment's data */
	cr_assert_eq(truncate(core_path("r"), (off_t)(size - 0x800)), 0);
	open_ok(&cf, core_path("r"));
	cr_assert(cf.truncated);
	cr_assert_eq(cf.expected_size, size);
	core_space_build(&as, &cf, NULL, NULL);
	memsrc_core_init(&m, &cf, &as);
	cr_assert_eq(mem_read_some(&m.base, 0x11700, buf, 0x100), 0x100);
	cr_assert_eq(mem_read_some(&m.base, 0x11780, buf, 0x100), 0x80, "stops where the file ends");
	cr_assert_eq(mem_read_some(&m.base, 0x11900, buf, 8), -1);
	cr_assert_gt(m.miss.truncated, 0);
	addrspace_free(&as);
	core_file_close(&cf);
	cb_free(&b);
}

/* This binary's first executable PT_LOAD. */
static const struct elf_load *self_text(void)
{
	for (size_t i = 0; i < self_img->nloads; i++)
		if (self_img->loads[i].flags & PF_X)
			return &self_img->loads[i];
	cr_assert_fail("no executable segment in %s", self);
	return NULL;
}

Test(core, file_fallback_build_id_and_omitted_mappings)
{
	/* a kernel core keeps the first page of a mapped ELF file (bit 4 of coredump_filter) and
	 * leaves out the rest of its read-only mapping; a gcore leaves out the code mapping entirely */
	static uint8_t anon[0x1000];
	const uint64_t base = 0x400000;
	const struct elf_load *text = self_text();
	uint64_t text_off = text->offset & ~0xfffULL;
	uint64_t text_at = 0x7f0000000000;
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 1, 6, text_at + 0x10, 0x20000);
	const struct cb_file files[] = {
	    {base, base + 0x3000, 0, self},
	    {text_at, text_at + 0x2000, text_off / 4096, self},
	};
	cb_files(&b, files, 2);
	static uint8_t first_page[0x1000];
	cr_assert_eq(elf_image_read_file(self_img, 0, first_page, sizeof(first_page)), sizeof(first_page));
	cb_load(&b, base, 0x3000, PF_R, first_page, 0x1000);
	cb_load(&b, 0x20000, 0x1000, PF_R | PF_W, anon, 0); /* anonymous, not dumped */
	cb_write(&b, core_path("f"));
	struct core_file cf;
	open_ok(&cf, core_path("f"));
	struct addrspace as;
	core_space_build(&as, &cf, NULL, NULL);
	struct memsrc_core m;
	memsrc_core_init(&m, &cf, &as);

	uint8_t buf[64];
	cr_assert(mem_read(&m.base, base + 0x10, buf, sizeof(buf)));
	cr_assert_eq(memcmp(buf, first_page + 0x10, sizeof(buf)), 0);
	cr_assert_eq(m.from_core, 1);
	cr_assert(mem_read(&m.base, base + 0x1800, buf, sizeof(buf)), "read from the file");
	uint8_t want[64];
	cr_assert_eq(elf_image_read_file(self_img, 0x1800, want, sizeof(want)), sizeof(want));
	cr_assert_eq(memcmp(buf, want, sizeof(buf)), 0);
	cr_assert_eq(m.from_files, 1);
	/* the omitted code mapping: executable (from the file's program headers), readable */
	const struct mapping *tm = maps_find(&as.maps, text_at + 0x10);
	cr_assert_not_null(tm);
	cr_assert(tm->prot & MAP_X);
	cr_assert(mem_read(&m.base, text_at + 0x100, buf, sizeof(buf)));
	cr_assert_eq(elf_image_read_file(self_img, text_off + 0x100, want, sizeof(want)), sizeof(want));
	cr_assert_eq(memcmp(buf, want, sizeof(buf)), 0);
	struct addr_info ai;
	cr_assert(addrspace_lookup(&as, text_at + 0x100, &ai));
	cr_assert_not_null(ai.mod);
	cr_assert(ai.vaddr_ok);
	/* anonymous memory the core left out: a miss of its own kind */
	cr_assert_eq(mem_read_some(&m.base, 0x20010, buf, 8), -1);
	cr_assert_eq(m.miss.not_dumped, 1);
	/* the build-id of the core's copy of the first page is the file's */
	uint8_t id[BUILD_ID_MAX];
	size_t n = core_build_id(&cf, base, id);
	cr_assert_gt(self_img->build_id_len, 0, "this test binary has a build-id");
	cr_assert_eq(n, self_img->build_id_len);
	cr_assert_eq(memcmp(id, self_img->build_id, n), 0);
	cr_assert_eq(core_build_id(&cf, text_at, id), 0, "the core holds no headers there");
	addrspace_free(&as);
	core_file_close(&cf);
	cb_free(&b);
}

Test(core, files_that_are_not_usable_cores)
{
	open_fails(core_path("missing"), "cannot open core file");
	FILE *f = fopen(core_path("garbage"), "w");
	fputs("this is not an ELF file at all, just text", f);
	fclose(f);
	open_fails(core_path("garbage"), "is not a core file (not ELF)");
	f = fopen(core_path("empty"), "w");
	fclose(f);
	open_fails(core_path("empty"), "is empty");
	open_fails(self, "not a core file");

	struct core_builder b;
	cb_init(&b);
	cb_psinfo(&b, 1, "x"); /* notes, but no thread */
	cb_write(&b, core_path("nothreads"));
	open_fails(core_path("nothreads"), "no thread registers");
	cb_thread(&b, 1, 6, 0, 0);
	cb_write(&b, core_path("cut"));
	cr_assert_eq(truncate(core_path("cut"), 100), 0);
	open_fails(core_path("cut"), "ends inside its program headers");
	cr_assert_eq(truncate(core_path("cut"), 40), 0);
	open_fails(core_path("cut"), "ends inside its ELF header");
	cb_free(&b);
}

Test(core, file_offsets_and_segment_ends_past_2_64_are_not_wrapped)
{
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 100, 6, 0x401234, 0x7ffd0000);
	const struct cb_file files[] = {
	    {0x7f0000000000, 0x7f0000002000, 1ULL << 60, "/lib/wraps.so"}, /* × 4096 wraps to 0 */
	    {0x400000, 0x402000, 0, "/usr/bin/node"},
	};
	cb_files(&b, files, 2);
	static const uint8_t bytes[16] = "dumped";
	cb_load(&b, 0x10000, 0x1000, PF_R, bytes, sizeof(bytes));
	b.loads[0].forced_offset = 0xfffffffffffffff0ULL; /* offset + filesz wraps to 0 */
	cb_write(&b, core_path("wrap"));
	struct core_file cf;
	open_ok(&cf, core_path("wrap"));
	for (size_t i = 0; i < cf.files.n; i++)
		cr_assert(strcmp(cf.files.v[i].path, "/lib/wraps.so") != 0 || cf.files.v[i].pgoff != 0,
			  "a page offset past 2^64 is not read as offset 0");
	cr_assert_eq(cf.files.n, 1, "only the mapping with a real offset is kept");
	cr_assert(cf.truncated, "the segment that is not in the file makes the core truncated");
	cr_assert_geq(cf.expected_size, 0xfffffffffffffff0ULL, "its end is not wrapped to 0");
	uint8_t buf[8];
	cr_assert_eq(core_read(&cf, 0x10000, buf, sizeof(buf)), 0);
	core_file_close(&cf);
	cb_free(&b);
}

Test(core, failed_opens_leak_nothing)
{
	char empty[160];
	snprintf(empty, sizeof(empty), "%s/empty-core-with-a-long-name-to-make-every-leaked-copy-visible",
		 dir);
	FILE *f = fopen(empty, "w");
	cr_assert_not_null(f);
	fclose(f);
	const char *paths[] = {empty, dir, "/nonexistent/core-with-a-long-name-to-make-a-leak-visible"};
	for (size_t k = 0; k < 3; k++) {
		struct strbuf err;
		sb_init(&err);
		struct core_file cf;
		cr_assert_not(core_file_open(&cf, paths[k], &err)); /* warm up the allocator */
		size_t before = mallinfo2().uordblks;
		for (int i = 0; i < 2000; i++) {
			sb_reset(&err);
			cr_assert_not(core_file_open(&cf, paths[k], &err));
		}
		size_t after = mallinfo2().uordblks;
		cr_assert_lt(after, before + 4096, "%s: %zu bytes more in use after 2000 failed opens (%s)",
			     paths[k], after - before, err.s);
		sb_free(&err);
	}
}

Test(core, fifo_as_core_is_refused_without_hanging, .timeout = 10)
{
	cr_assert_eq(mkfifo(core_path("fifo"), 0600), 0);
	open_fails(core_path("fifo"), "is not a regular file");
}

/* A core whose NT_FILE names `exe` as the executable: core_target_open must refuse it and say why. */
static void exe_refused(const char *exe, const char *want)
{
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 100, 6, 0x401234, 0x7ffd0000);
	const struct cb_file files[] = {{0x400000, 0x402000, 0, exe}};
	cb_files(&b, files, 1);
	cb_write(&b, core_path("named"));
	struct core_target t;
	struct strbuf msg;
	sb_init(&msg);
	struct core_target_opts o = {.core_path = core_path("named")};
	cr_assert_not(core_target_open(&t, &o, &msg), "a core naming %s is not walked", exe);
	cr_assert(strstr(msg.s, want), "'%s' does not say '%s'", msg.s, want);
	sb_free(&msg);
	cb_free(&b);
}

Test(core, executable_named_as_a_fifo_is_refused_without_hanging, .timeout = 10)
{
	cr_assert_eq(mkfifo(core_path("exe-fifo"), 0600), 0);
	exe_refused(core_path("exe-fifo"), "it is a FIFO, not a regular file");
}

Test(core, executable_named_as_dev_zero_is_refused, .timeout = 10)
{
	exe_refused("/dev/zero", "it is a device, not a regular file");
}

/* 100,000 mapped files, each with its first page dumped and its second left out (as a kernel core
 * of a process with that many mappings has): indexing must be n log n. Quadratic indexing took
 * 8.2 s for 40,000 entries; n log n takes well under a second for 100,000. */
Test(core, hundred_thousand_mapped_files_index_in_n_log_n, .timeout = 60)
{
	enum { N = 100000 };
	struct core_file cf;
	memset(&cf, 0, sizeof(cf));
	cf.fd = -1;
	cf.segs = calloc(N, sizeof(*cf.segs));
	maps_init(&cf.files);
	char path[64];
	for (size_t i = 0; i < N; i++) {
		uint64_t start = 0x10000000ULL + i * 0x2000;
		snprintf(path, sizeof(path), "/nonexistent/v8walk-test/lib%zu.so", i);
		struct mapping m = {.start = start, .end = start + 0x2000, .path = path};
		maps_add(&cf.files, &m);
		cf.segs[i] = (struct core_segment){.vaddr = start, .memsz = 0x1000, .end = start + 0x1000,
						   .prot = MAP_R};
	}
	cf.nsegs = N;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct addrspace as;
	core_space_build(&as, &cf, NULL, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_log_info("core_space_build of %d files and %d segments: %.3f s", N, N, secs);
	cr_assert_eq(as.maps.n, 2 * N, "each file: its dumped page and its missing page");
	cr_assert_eq(as.nmods, N);
	size_t idx = 0;
	const struct module *mod = &as.mods[N / 2];
	const struct mapping *a = addrspace_next_mapping(&as, mod, &idx);
	const struct mapping *b = addrspace_next_mapping(&as, mod, &idx);
	cr_assert(a && b && !addrspace_next_mapping(&as, mod, &idx), "a module's two mappings, in order");
	cr_assert(a->end == b->start && strcmp(a->path, mod->path) == 0);
	/* generous for a loaded machine; the quadratic version needs minutes here (an emulated
	 * machine's V8WALK_TEST_TIME_SCALE stretches the bound: scripts/arm64-guest.sh) */
	cr_assert_lt(secs, 5.0 * test_time_scale(), "indexing %d mapped files took %.2f s", N, secs);
	addrspace_free(&as);
	core_file_close(&cf);
}

static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int c;
	while ((c = fgetc(f)) != EOF) {
		if (n + 1 >= cap)
			buf = realloc(buf, cap = cap ? 2 * cap : 4096);
		buf[n++] = (char)c;
	}
	if (!buf)
		buf = calloc(1, 1);
	buf[n] = 0;
	return buf;
}

static void no_raw_controls(const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		cr_assert(*p >= 0x20 || *p == '\n', "%s holds a raw control byte 0x%02x: %s", what, *p, s);
}

/* --core text: the process name (pr_fname), the core's path and the mapped files' paths come from
 * the core; none reaches the terminal raw. */
Test(core, core_text_escapes_what_the_core_names, .init = cr_redirect_stdout)
{
	cr_redirect_stderr();
	struct core_builder b;
	cb_init(&b);
	cb_thread(&b, 100, 11, 0x401234, 0x7ffd0000);
	cb_psinfo(&b, 100, "\x1b]0;PWN\x07");
	char lib[96];
	snprintf(lib, sizeof(lib), "%s/lib\x1b[2Jevil.so", dir);
	const struct cb_file files[] = {{0x400000, 0x402000, 0, self}, {0x7f0000000000, 0x7f0000001000, 0, lib}};
	cb_files(&b, files, 2);
	const char *path = core_path("core\x1b[31m");
	cb_write(&b, path);
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CORE;
	o.core = path;
	mode_core(&o);
	fflush(stdout);
	fflush(stderr);
	char *out = slurp(cr_get_redirected_stdout()), *err = slurp(cr_get_redirected_stderr());
	no_raw_controls("stdout", out);
	no_raw_controls("stderr", err);
	cr_assert(strstr(out, "(\\x1b]0;PWN\\x07)"), "the process name, escaped: %s", out);
	cr_assert(strstr(out, "core\\x1b[31m"), "the core's path, escaped: %s", out);
	free(out);
	free(err);
	cb_free(&b);
}
