/* test_writers.c — the output contract: folded stacks (root first, integer counts, `_[j]` on JS
 * frames, bare native names, no `;` or newlines inside a frame, roots that never end in a bare
 * number) and the text tree (counts, percentages, indentation, threshold folding). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profile/profile.h"
#include "../../profile/writers.h"
#include "../../cli/dump.h"
#include "frame_builders.h"

static struct intern strings;
static struct profile prof;
static uint32_t proc_name, thread_role;

static void setup(void)
{
	intern_init(&strings);
	profile_init(&prof, &strings, LINES_CURRENT);
	proc_name = intern_str(&strings, "node");
	thread_role = intern_str(&strings, "main");
}

static void teardown(void)
{
	profile_free(&prof);
	intern_free(&strings);
}

static struct frame native(const char *name)
{
	struct frame f = fb_native(&strings, name);
	f.pc = (uint64_t)random();
	return f;
}

static struct frame js(const char *name, const char *file, int line, int def_line)
{
	return fb_js(&strings, name, file, line, def_line);
}

/* frames are given leaf first, as the walker produces them */
static void add(int count, int n, ...)
{
	struct frame fr[16];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		fr[i] = va_arg(ap, struct frame);
	va_end(ap);
	struct sample s = {.time_ns = 1000, .pid = 1234, .tid = 1234, .process_name = proc_name,
			   .thread_role = thread_role, .frames = fr, .n = n};
	for (int i = 0; i < count; i++)
		profile_add(&prof, &s);
}

static char *render(int folded, double min_pct)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct write_opts wo = {.min_percent = min_pct};
	if (folded)
		write_folded(&prof, &wo, f);
	else
		write_tree(&prof, &wo, f);
	fclose(f);
	return buf;
}

TestSuite(writers, .init = setup, .fini = teardown);

Test(writers, folded_lines_root_first_with_counts)
{
	add(3, 3, js("leaf", "/srv/a.js", 7, 5), js("outer", "/srv/a.js", 20, 18), native("uv_run"));
	add(2, 3, js("leaf", "/srv/a.js", 7, 5), js("outer", "/srv/a.js", 20, 18), native("uv_run"));
	add(1, 1, native("epoll_wait"));
	char *out = render(1, 0);
	cr_assert(strstr(out, "node (1234);main (1234);uv_run;outer (/srv/a.js:20)_[j];leaf (/srv/a.js:7)_[j] 5\n"),
		  "%s", out);
	cr_assert(strstr(out, "node (1234);main (1234);epoll_wait 1\n"), "%s", out);
	/* every line parses as `stack COUNT` with one space and an integer */
	int lines = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
		char *sp = strrchr(l, ' ');
		cr_assert_not_null(sp);
		cr_assert_eq(strspn(sp + 1, "0123456789"), strlen(sp + 1));
		cr_assert_neq(l[0], '#', "no comment lines");
	}
	cr_assert_eq(lines, 2);
	free(out);
}

Test(writers, natives_aggregate_regardless_of_pc)
{
	add(1, 1, native("v8::internal::Heap::CollectGarbage"));
	add(1, 1, native("v8::internal::Heap::CollectGarbage"));
	char *out = render(1, 0);
	cr_assert(strstr(out, "v8::internal::Heap::CollectGarbage 2\n"), "%s", out);
	free(out);
}

Test(writers, unsafe_characters_are_escaped)
{
	add(1, 1, js("evil;name\nwith\ttabs", "/srv/x;y.js", 1, 1));
	char *out = render(1, 0);
	cr_assert(strstr(out, "evil:name\\x0awith\\x09tabs (/srv/x:y.js:1)_[j] 1\n"), "%s", out);
	free(out);
}

Test(writers, function_mode_aggregates_by_definition_line)
{
	profile_free(&prof);
	profile_init(&prof, &strings, LINES_FUNCTION);
	add(1, 1, js("leaf", "/srv/a.js", 7, 5));
	add(1, 1, js("leaf", "/srv/a.js", 9, 5));
	char *out = render(1, 0);
	cr_assert(strstr(out, "leaf (/srv/a.js:5)_[j] 2\n"), "%s", out);
	free(out);
}

/* Two functions of one name on one line (a minified bundle's `(anonymous)`s on line 1) stay two
 * frames: each keeps its own definition column (the cpuprofile's callFrame) and its own count. */
Test(writers, same_name_same_line_different_functions_stay_apart)
{
	struct frame a = js("(anonymous)", "/srv/bundle.js", 1, 1), b = a;
	a.col = a.def_col = a.start_col = 6814198;
	b.col = b.def_col = b.start_col = 7371090;
	a.start_line = b.start_line = 1;
	add(3, 2, a, js("caller", "/srv/bundle.js", 1, 1));
	add(2, 2, b, js("caller", "/srv/bundle.js", 1, 1));
	cr_assert_eq(prof.nframes, 3, "frames: %zu", prof.nframes);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct write_opts wo = {0};
	write_cpuprofile(&prof, &wo, f);
	fclose(f);
	const char *pa = strstr(buf, "\"columnNumber\":6814197}"), *pb = strstr(buf, "\"columnNumber\":7371089}");
	cr_assert(pa && pb, "%s", buf);
	cr_expect(strstr(pa, "\"hitCount\":3"), "%s", buf);
	cr_expect(strstr(pb, "\"hitCount\":2"), "%s", buf);
	free(buf);
	/* the folded text shows no column: there the two read alike, and a consumer adds them up */
	char *out = render(1, 0);
	cr_expect(strstr(out, "caller (/srv/bundle.js:1)_[j];(anonymous) (/srv/bundle.js:1)_[j] 3\n"), "%s", out);
	cr_expect(strstr(out, "caller (/srv/bundle.js:1)_[j];(anonymous) (/srv/bundle.js:1)_[j] 2\n"), "%s", out);
	free(out);
}

Test(writers, inlined_frames_are_tagged)
{
	struct frame f = js("small", "/srv/a.js", 3, 2);
	f.kind = FK_JS_INLINED;
	add(1, 2, f, js("big", "/srv/a.js", 10, 9));
	char *out = render(1, 0);
	cr_assert(strstr(out, "big (/srv/a.js:10)_[j];small (/srv/a.js:3)_[i] 1\n"), "%s", out);
	free(out);
}

/* An awaiting async function (walker/async_frames.h): tagged _[a], and a function of its own in the
 * formats that have functions, apart from the same function's own frames. */
static struct frame async_js(const char *fn, const char *file, int line, int def_line)
{
	char name[64];
	snprintf(name, sizeof(name), "async %s", fn);
	struct frame f = js(name, file, line, def_line);
	f.kind = FK_JS_ASYNC;
	f.fn_name = intern_str(&strings, name);
	return f;
}

Test(writers, async_frames_are_tagged_and_functions_of_their_own)
{
	add(2, 4, js("crunch", "/srv/a.js", 3, 1), js("placeOrder", "/srv/a.js", 9, 8),
	    async_js("placeOrder", "/srv/a.js", 10, 8), native("uv_run"));
	char *out = render(1, 0);
	cr_assert(strstr(out, "uv_run;async placeOrder (/srv/a.js:10)_[a];placeOrder (/srv/a.js:9)_[j];"
			      "crunch (/srv/a.js:3)_[j] 2\n"), "%s", out);
	free(out);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct write_opts wo = {0};
	profile_writer_named("speedscope")->write(&prof, &wo, f);
	fclose(f);
	cr_assert(strstr(buf, "{\"name\":\"async placeOrder\""), "%s", buf);
	cr_assert(strstr(buf, "{\"name\":\"placeOrder\""), "%s", buf);
	free(buf);
}

Test(writers, tree_counts_percentages_and_threshold)
{
	add(90, 2, js("hot", "/a.js", 1, 1), native("uv_run"));
	add(9, 2, js("warm", "/a.js", 2, 2), native("uv_run"));
	add(1, 2, js("cold", "/a.js", 3, 3), native("uv_run"));
	char *out = render(0, 5.0);
	cr_assert(strstr(out, " SAMPLES PERCENT  FRAME\n"), "%s", out);
	cr_assert(strstr(out, "     100 100.00%  node (1234)\n"), "%s", out);
	cr_assert(strstr(out, "     100 100.00%      uv_run\n"), "%s", out);
	cr_assert(strstr(out, "      90  90.00%        hot (/a.js:1)\n"), "%s", out);
	cr_assert(strstr(out, "       9   9.00%        warm (/a.js:2)\n"), "%s", out);
	cr_assert(strstr(out, "       1   1.00%        [1 more below 5%]\n"), "%s", out);
	cr_assert_null(strstr(out, "cold"), "folded below the threshold");
	/* children sorted by count */
	cr_assert_lt(strstr(out, "hot ("), strstr(out, "warm ("));
	cr_assert_null(strstr(out, "_[j]"), "no folded-format suffixes in the tree");
	free(out);
}

/* A frame a source map moved: JSON shows the original position and keeps the generated one; a
 * frame no map moved has no "generated" member. */
Test(writers, json_keeps_the_generated_position)
{
	struct frame f[2] = {js("handleRequest", "/srv/src/server.ts", 42, 40), js("main", "/srv/dist/x.js", 3, 1)};
	f[0].col = 7;
	f[0].gen_file = intern_str(&strings, "/srv/dist/server.js");
	f[0].gen_line = 1;
	f[0].gen_col = 4812;
	f[1].col = 2;
	struct process_dump d;
	process_dump_init(&d, &strings);
	process_dump_add(&d, 1234, f, 2);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cr_assert_eq(write_dump_json(&d, out), 0);
	fclose(out);
	cr_assert(strstr(buf, "\"name\":\"handleRequest\",\"file\":\"/srv/src/server.ts\",\"line\":42,\"column\":7,"),
		  "%s", buf);
	cr_assert(strstr(buf, "\"generated\":{\"file\":\"/srv/dist/server.js\",\"line\":1,\"column\":4812}"), "%s", buf);
	cr_assert_eq(strstr(strstr(buf, "\"main\""), "generated"), NULL, "%s", buf);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	cr_assert_eq(write_dump_text(&d, out), 0);
	fclose(out);
	cr_assert(strstr(buf, "handleRequest (/srv/src/server.ts:42:7)"), "%s", buf);
	free(buf);
	process_dump_free(&d);
}
