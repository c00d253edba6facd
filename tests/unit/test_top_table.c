/* test_top_table.c — the rows of `v8walk top`: own samples to the leaf, or to the innermost JS
 * function when native frames are off; totals once per sample however deep the recursion; rows
 * by current line or by definition line; one thread; a window of the records beside the whole
 * run; rows per process; the sort columns. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "../../profile/profile.h"
#include "../../profile/top_table.h"
#include "frame_builders.h"

static struct intern strings;
static struct profile prof;
static struct top_table table;

static void setup(void)
{
	intern_init(&strings);
	profile_init(&prof, &strings, LINES_CURRENT);
	top_table_init(&table);
}

static void teardown(void)
{
	top_table_free(&table);
	profile_free(&prof);
	intern_free(&strings);
}

static struct frame native(const char *name)
{
	return fb_native(&strings, name);
}

static struct frame js(const char *name, int line, int def_line)
{
	return fb_js(&strings, name, "/app.js", line, def_line);
}

/* count samples of one stack (leaf first) on thread tid of process pid */
static void add(pid_t pid, pid_t tid, const char *role, int count, int n, ...)
{
	struct frame fr[16];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		fr[i] = va_arg(ap, struct frame);
	va_end(ap);
	struct sample s = {.time_ns = 1000, .pid = pid, .tid = tid,
			   .process_name = intern_str(&strings, "node"),
			   .thread_role = intern_str(&strings, role), .frames = fr, .n = n};
	for (int i = 0; i < count; i++)
		profile_add(&prof, &s);
}

/* the row whose frame has this name (and line, when line > 0) */
static const struct top_row *row(const char *name, int line)
{
	const struct top_row *found = NULL;
	for (size_t i = 0; i < table.n; i++) {
		const struct frame *f = &prof.frames[table.rows[i].frame];
		if (strcmp(intern_get(&strings, f->name), name) || (line > 0 && f->line != line))
			continue;
		cr_assert_null(found, "one row for %s:%d", name, line);
		found = &table.rows[i];
	}
	cr_assert_not_null(found, "a row for %s:%d", name, line);
	return found;
}

static struct top_query all_of(size_t nrecs)
{
	return (struct top_query){.thread = -1, .window_from = 0, .window_to = nrecs};
}

/* main → work:10 → (recursion) work:12 → leaf natives */
static void program(void)
{
	struct frame m = js("main", 3, 1), w10 = js("work", 10, 8), w12 = js("work", 12, 8);
	add(1, 1, "main", 6, 3, w12, w10, m);              /* JS leaf, work recursing */
	add(1, 1, "main", 3, 3, native("memcpy"), w10, m); /* a native leaf under work:10 */
	add(1, 1, "main", 1, 1, native("epoll_wait"));     /* no JS at all */
	add(1, 2, "worker", 2, 2, js("hash", 40, 39), native("node::worker::Worker::Run"));
}

Test(top_table, native_time_to_the_js_caller, .init = setup, .fini = teardown)
{
	program();
	struct top_query q = all_of(prof.nrecs);
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.samples, 12);
	cr_assert_eq(table.samples_all, 12);
	cr_assert_eq(row("work", 12)->own, 6);
	cr_assert_eq(row("work", 10)->own, 3, "memcpy's samples go to work:10 that called it");
	cr_assert_eq(row("memcpy", 0)->own, 0);
	cr_assert_eq(row("memcpy", 0)->total, 3);
	cr_assert_eq(row("epoll_wait", 0)->own, 1, "a stack without JS keeps its leaf");
	cr_assert_eq(row("main", 0)->total, 9);
	cr_assert_eq(row("main", 0)->own, 0);
	cr_assert_eq(row("work", 10)->total, 9);
	cr_assert_eq(table.rows[0].own, 6, "sorted by own samples: work:12 first");
	q.native_own = true;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(row("work", 10)->own, 0);
	cr_assert_eq(row("memcpy", 0)->own, 3, "native frames keep their own samples");
}

Test(top_table, definition_lines_and_recursion, .init = setup, .fini = teardown)
{
	program();
	/* deeper recursion of one function at one line: counted once per sample */
	struct frame r = js("rec", 5, 4);
	add(1, 1, "main", 4, 4, r, r, r, js("main", 3, 1));
	struct top_query q = all_of(prof.nrecs);
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(row("rec", 0)->total, 4, "recursion counts once per sample");
	cr_assert_eq(row("rec", 0)->own, 4);
	q.def_lines = true;
	top_table_compute(&table, &prof, &q);
	const struct top_row *w = row("work", 0); /* one row: lines 10 and 12 merged */
	cr_assert_eq(w->own, 9);
	cr_assert_eq(w->total, 9, "work on the stack twice (10 calling 12) counts once");
}

Test(top_table, thread_window_and_processes, .init = setup, .fini = teardown)
{
	program();
	size_t half = prof.nrecs;
	add(1, 1, "main", 5, 2, js("late", 20, 19), js("main", 3, 1));
	add(2, 7, "main", 2, 1, js("late", 20, 19));
	struct top_query q = all_of(prof.nrecs);
	q.window_from = half;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.samples, 7, "the window holds the last records only");
	cr_assert_eq(table.samples_all, 19);
	cr_assert_eq(row("late", 0)->own, 7);
	cr_assert_eq(row("work", 12)->own, 0);
	cr_assert_eq(row("work", 12)->own_all, 6, "since the start beside the window");
	q.sort = TOP_SORT_OWN_TIME;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.rows[0].own_all, 7, "late (7 since start) before work:12 (6)");
	q.sort = TOP_SORT_TOTAL;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.rows[0].total, 7);
	q.by_process = true;
	q.sort = TOP_SORT_OWN;
	top_table_compute(&table, &prof, &q);
	size_t late_rows = 0;
	for (size_t i = 0; i < table.n; i++)
		if (!strcmp(intern_get(&strings, prof.frames[table.rows[i].frame].name), "late")) {
			late_rows++;
			cr_assert_eq(table.rows[i].own, table.rows[i].pid == 1 ? 5 : 2);
		}
	cr_assert_eq(late_rows, 2, "a row per process");
	q.by_process = false;
	q.thread = profile_find_thread(&prof, "worker");
	q.window_from = 0;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.samples_all, 2);
	cr_assert_eq(row("hash", 0)->own, 2);
	for (size_t i = 0; i < table.n; i++)
		cr_assert_str_neq(intern_get(&strings, prof.frames[table.rows[i].frame].name), "work",
				  "only the worker's functions");
}

Test(top_table, a_row_is_what_is_shown, .init = setup, .fini = teardown)
{
	struct frame inl = js("hot", 30, 29), alloc = native("malloc");
	inl.kind = FK_JS_INLINED;
	alloc.kind = FK_BUILTIN;
	add(1, 1, "main", 2, 2, js("hot", 30, 29), js("main", 3, 1));
	add(1, 1, "main", 3, 3, inl, js("caller", 50, 49), js("main", 3, 1));
	add(1, 1, "main", 1, 2, native("malloc"), js("main", 3, 1));
	add(1, 1, "main", 1, 2, alloc, js("main", 3, 1));
	struct top_query q = all_of(prof.nrecs);
	q.native_own = true;
	top_table_compute(&table, &prof, &q);
	size_t hot = 0, malloc_rows = 0;
	for (size_t i = 0; i < table.n; i++) {
		const char *name = intern_get(&strings, prof.frames[table.rows[i].frame].name);
		if (!strcmp(name, "hot")) {
			hot++;
			cr_assert_eq(table.rows[i].own, 5, "inlined or not, hot (app.js:30) is one row");
		}
		if (!strcmp(name, "malloc")) {
			malloc_rows++;
			cr_assert_eq(table.rows[i].own, 2, "two kinds of frame that print the same: one row");
		}
	}
	cr_assert_eq(hot, 1);
	cr_assert_eq(malloc_rows, 1);
}

Test(top_table, since_the_start_stops_at_the_window_end, .init = setup, .fini = teardown)
{
	program();
	size_t end = prof.nrecs;
	struct top_query q = all_of(end);
	top_table_compute(&table, &prof, &q);
	add(1, 1, "main", 5, 2, js("late", 20, 19), js("main", 3, 1));
	/* a paused view: the same window again, with records added since */
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.samples_all, 12, "records after the window's end are not counted yet");
	for (size_t i = 0; i < table.n; i++)
		cr_assert_str_neq(intern_get(&strings, prof.frames[table.rows[i].frame].name), "late");
	q.window_to = prof.nrecs;
	top_table_compute(&table, &prof, &q);
	cr_assert_eq(table.samples_all, 17);
	cr_assert_eq(row("late", 0)->own_all, 5);
}
