/* test_perfmap.c — perf-map names (symtab/perfmap.c): parsing, the last line winning for an
 * address, files re-read as they grow or when replaced, the safety checks (symlink, owner), and
 * the walker's hook that names the JIT frames the heap could not (walker/jit_names.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "time_scale.h"
#include "../../cli/summary.h"
#include "../../symtab/perfmap.h"
#include "../../walker/stackwalk.h"
#include "fake_heap.h"

static struct intern names;
static struct perfmap pm;
static char dir[64];

static void setup(void)
{
	intern_init(&names);
	snprintf(dir, sizeof(dir), "/tmp/v8walk-perfmap-unit-%d", (int)getpid());
	mkdir(dir, 0700);
}

static void teardown(void)
{
	perfmap_free(&pm);
	intern_free(&names);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(perfmap, .init = setup, .fini = teardown);

static const char *name_at(uint64_t addr)
{
	uint32_t id = perfmap_lookup(&pm, addr);
	return id ? intern_get(&names, id) : NULL;
}

static void parse(const char *text)
{
	cr_assert_eq(perfmap_parse(&pm, text, strlen(text)), strlen(text));
}

Test(perfmap, lines_and_lookups)
{
	perfmap_init_path(&pm, "", 0, &names);
	parse("1000 100 JS:*leaf /srv/app.js:3:10\n"
	      "0x2000 0x10 RegExp:(a|b)*c\n"
	      "not a line\n"
	      "3000 0 zero size is skipped\n"
	      "4000 10\n");
	cr_assert_str_eq(name_at(0x1000), "JS:*leaf /srv/app.js:3:10");
	cr_assert_str_eq(name_at(0x10ff), "JS:*leaf /srv/app.js:3:10");
	cr_assert_null(name_at(0x1100), "end is exclusive");
	cr_assert_str_eq(name_at(0x2008), "RegExp:(a|b)*c");
	cr_assert_null(name_at(0x3000));
	cr_assert_null(name_at(0x4004), "a line without a name");
	cr_assert_null(name_at(0xfff));
}

Test(perfmap, the_last_line_for_an_address_wins)
{
	perfmap_init_path(&pm, "", 0, &names);
	/* a long early entry still covers addresses past later, shorter ones */
	parse("1000 10000 Stub:big\n"
	      "2000 100 JS:~old\n"
	      "2000 100 JS:*new\n"
	      "8000 10 Builtin:later\n");
	cr_assert_str_eq(name_at(0x2010), "JS:*new");
	cr_assert_str_eq(name_at(0x8004), "Builtin:later");
	cr_assert_str_eq(name_at(0x9000), "Stub:big", "reached back over later entries");
	parse("1000 10000 Stub:replaced\n");
	cr_assert_str_eq(name_at(0x9000), "Stub:replaced");
	cr_assert_str_eq(name_at(0x2010), "Stub:replaced");
}

Test(perfmap, incomplete_lines_wait_for_their_end)
{
	perfmap_init_path(&pm, "", 0, &names);
	const char *text = "1000 10 one\n2000 10 tw";
	cr_assert_eq(perfmap_parse(&pm, text, strlen(text)), 12);
	cr_assert_str_eq(name_at(0x1000), "one");
	cr_assert_null(name_at(0x2000));
}

static void write_file(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(perfmap, the_file_is_reread_as_it_grows_and_when_replaced)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	perfmap_init_path(&pm, path, getuid(), &names);
	cr_assert_null(name_at(0x1000), "no file yet");
	write_file(path, "w", "1000 10 first\n");
	usleep(250 * 1000);
	cr_assert_str_eq(name_at(0x1000), "first", "the file appeared");
	write_file(path, "a", "2000 10 appended\n");
	cr_assert_null(name_at(0x2000), "looked at again only after a while");
	usleep(250 * 1000);
	cr_assert_str_eq(name_at(0x2000), "appended");
	char tmp[160];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	write_file(tmp, "w", "3000 10 replacement\n");
	cr_assert_eq(rename(tmp, path), 0);
	usleep(250 * 1000);
	cr_assert_str_eq(name_at(0x3000), "replacement");
	cr_assert_null(name_at(0x1000), "the old file's lines are gone");
}

Test(perfmap, symlinks_and_files_of_other_users_are_refused)
{
	char real[128], link[128];
	snprintf(real, sizeof(real), "%s/elsewhere.map", dir);
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	write_file(real, "w", "1000 10 secret\n");
	cr_assert_eq(symlink(real, link), 0);
	perfmap_init_path(&pm, link, getuid(), &names);
	cr_assert_null(name_at(0x1000));
	cr_assert_str_eq(pm.refused, "it is a symbolic link");
	perfmap_free(&pm);

	/* owned by neither the target's user nor root */
	uid_t target = getuid() + 1;
	if (getuid() == 0) {
		cr_assert_eq(chown(real, 65534, 65534), 0);
		target = 0;
	}
	perfmap_init_path(&pm, real, target == 0 ? 1 : target, &names);
	cr_assert_null(name_at(0x1000));
	cr_assert_str_eq(pm.refused, "it is owned by another user than the process");
	perfmap_free(&pm);
	/* the same file for the user who owns it */
	struct stat st;
	cr_assert_eq(stat(real, &st), 0);
	perfmap_init_path(&pm, real, st.st_uid, &names);
	cr_assert_str_eq(name_at(0x1000), "secret");
}

/* The walker's hook: a frame in JIT code whose function the heap cannot decode is
 * "[unknown] (JIT code)" after stage 1, and named from the map in stage 2. */
Test(perfmap, unknown_jit_frames_are_named_in_stage_two)
{
	struct fake_heap fh;
	fh_init(&fh);
	struct addrspace as;
	addrspace_init(&as, 0, "");
	struct mapping jit = {.start = 0x7000000, .end = 0x7100000, .prot = MAP_R | MAP_X};
	maps_add(&as.maps, &jit);
	uint64_t lo = fh_alloc(&fh, 8192) - 1;
	struct mapping stack = {.start = lo, .end = lo + 8192, .prot = MAP_R | MAP_W};
	maps_add(&as.maps, &stack);
	maps_sort(&as.maps);
	addrspace_index(&as);
	struct v8_runtime rt;
	memset(&rt, 0, sizeof(rt));
	rt.L = fh.L;
	struct stackwalk sw;
	stackwalk_init(&sw, &as, &rt, &names, false);
	/* fp: a context-like heap object, then a function slot that holds no JSFunction */
	uint64_t fp = lo + 1024, v;
	v = fh_obj(&fh, FT_FIXED_ARRAY, 64);
	memcpy(fh_ptr(&fh, fp - 8), &v, 8);
	v = fh_obj(&fh, FT_SCRIPT, 64);
	memcpy(fh_ptr(&fh, fp - 16), &v, 8);
	v = 0;
	memcpy(fh_ptr(&fh, fp), &v, 8);
	memcpy(fh_ptr(&fh, fp + 8), &v, 8);
	struct regset r;
	memset(&r, 0, sizeof(r));
	reg_set(&r, REG_PC, 0x7000040);
	reg_set(&r, REG_SP, lo + 512);
	reg_set(&r, REG_FP, fp);
	struct stack_bounds b = {lo, lo + 8192};
	struct frame out[8];
	struct walk_stats ws;
	int n = stackwalk_capture(&sw, &r, &fh.base, &b, out, 8, &ws);
	cr_assert_geq(n, 1);
	cr_assert_eq(out[0].kind, FK_UNKNOWN);
	cr_assert_str_eq(intern_get(&names, out[0].name), "[unknown] (JIT code)");

	perfmap_init_path(&pm, "", 0, &names);
	parse("7000000 100 JS:*hot /srv/app.js:1:1\n");
	sw.perfmap = &pm;
	stackwalk_name_natives(&sw, out, n);
	cr_assert_eq(out[0].kind, FK_UNKNOWN);
	cr_assert_str_eq(intern_get(&names, out[0].name), "JS:*hot /srv/app.js:1:1");
	stackwalk_free(&sw);
	addrspace_free(&as);
	fh_free(&fh);
}

/* Look again now (the file is otherwise looked at every RECHECK_NS). */
static const char *name_at_now(uint64_t addr)
{
	pm.last_check_ns = 0;
	return name_at(addr);
}

Test(perfmap, a_sparse_petabyte_file_is_read_a_bounded_amount_per_look, .timeout = 30)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/perf-3.map", dir);
	write_file(path, "w", "1000 10 before-the-hole\n");
	/* as large as the file system allows: 1 PB (xfs, tmpfs), else 16 TB - 4 KiB (ext4) */
	if (truncate(path, (off_t)1 << 50) != 0)
		cr_assert_eq(truncate(path, ((off_t)1 << 44) - 4096), 0, "a sparse file of 16 TB");
	perfmap_init_path(&pm, path, getuid(), &names);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_str_eq(name_at_now(0x1000), "before-the-hole");
	cr_assert_leq(pm.parsed, PERFMAP_PASS_BYTES, "one look reads at most %llu bytes, not the file",
		      (unsigned long long)PERFMAP_PASS_BYTES);
	int looks = 1;
	while (!pm.cut && looks < 1000) {
		name_at_now(0x1000);
		looks++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert(pm.cut, "the map is cut at the total bound");
	cr_assert_leq(pm.parsed, PERFMAP_MAX_BYTES);
	cr_assert_eq(looks, (int)(PERFMAP_MAX_BYTES / PERFMAP_PASS_BYTES) + 1, "%d looks", looks);
	cr_assert_lt(secs, 10.0 * test_time_scale(), "%.1f s", secs);
	cr_assert_str_eq(name_at_now(0x1000), "before-the-hole", "what was read is still used");
}

Test(perfmap, a_big_map_is_cut_at_its_bounds_and_says_so, .timeout = 60)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/perf-4.map", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	/* 1.5 M lines, ~70 MB: more lines than PERFMAP_MAX_ENTRIES and bytes than PERFMAP_MAX_BYTES */
	for (unsigned i = 0; i < 1500000; i++)
		fprintf(f, "%x 10 JS:*function_with_a_long_name_%u /srv/app/some/file.js:%u:1\n",
			0x100000 + i * 0x10, i, i);
	fclose(f);
	perfmap_init_path(&pm, path, getuid(), &names);
	cr_assert_str_eq(name_at_now(0x100000), "JS:*function_with_a_long_name_0 /srv/app/some/file.js:0:1");
	cr_assert_leq(pm.parsed, PERFMAP_PASS_BYTES, "read incrementally (%llu bytes)", (unsigned long long)pm.parsed);
	for (int looks = 0; looks < 100 && !pm.cut; looks++)
		name_at_now(0x100000);
	cr_assert(pm.cut);
	cr_assert_leq(pm.n, PERFMAP_MAX_ENTRIES);
	cr_assert_leq(pm.parsed, PERFMAP_MAX_BYTES);
	cr_assert_leq(pm.names.len, PERFMAP_MAX_BYTES, "names are bounded by the bytes read");
	unsigned last = (unsigned)pm.n - 1;
	char want[96];
	snprintf(want, sizeof(want), "JS:*function_with_a_long_name_%u /srv/app/some/file.js:%u:1", last, last);
	cr_assert_str_eq(name_at_now(0x100000 + (uint64_t)last * 0x10), want);
	cr_assert_null(name_at_now(0x100000 + 1499999ULL * 0x10), "lines past the cut are not used");
	char *said = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&said, &len);
	print_limits(out, 4, &pm, NULL, NULL);
	fclose(out);
	cr_assert(strstr(said, "v8walk: the perf map of process 4 was cut after "), "the summary says so: %s", said);
	free(said);
}
