/* test_stalls.c — a stall's samples: what each spent its time on (JS, GC, a synchronous native
 * call named by the binding nearest the script, a builtin of V8 named past its C++ entry), and a
 * stall's report: its classes, its innermost application functions by samples, the script frames
 * of the most frequent, an end record lost, a stall under way at the start, one unfinished. */
#include <criterion/criterion.h>

#include "../../profile/stall_tracker.h"
#include "../../walker/stall_class.h"
#include "frame_builders.h"

static struct intern strings;

static void setup(void)
{
	intern_init(&strings);
}

static void teardown(void)
{
	intern_free(&strings);
}

TestSuite(stalls, .init = setup, .fini = teardown);

static struct frame builtin(const char *name)
{
	struct frame f = fb_native(&strings, name);
	f.kind = FK_BUILTIN;
	return f;
}

static struct frame v8_js_builtin(const char *name)
{
	struct frame f = fb_js(&strings, name, "", 0, 0);
	f.file = 0;
	return f;
}

Test(stalls, each_sample_classed_and_named)
{
	int named;
	struct frame js[] = {fb_js(&strings, "busyLoop", "/app/a.js", 9, 3), fb_js(&strings, "run", "/app/a.js", 20, 18)};
	cr_assert_eq(stall_class_of(&strings, js, 2, &named), STALL_JS);
	cr_assert_eq(named, -1);

	struct frame json[] = {fb_native(&strings, "v8::internal::JsonParser<unsigned char>::ParseJson"),
			       fb_native(&strings, "v8::internal::Builtin_JsonParse"),
			       builtin("Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit"),
			       fb_js(&strings, "parseBig", "/app/a.js", 30, 30)};
	cr_assert_eq(stall_class_of(&strings, json, 4, &named), STALL_BUILTIN);
	cr_assert_str_eq(intern_get(&strings, json[named].name), "v8::internal::Builtin_JsonParse",
			 "past the C++ entry trampoline");

	struct frame re[] = {fb_native(&strings, "v8::internal::IrregexpInterpreter::Match"),
			     builtin("Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit"),
			     v8_js_builtin("RegExp.test"), fb_js(&strings, "matchEvil", "/app/a.js", 39, 39)};
	cr_assert_eq(stall_class_of(&strings, re, 4, &named), STALL_BUILTIN,
		     "a JS builtin without a script is V8's");
	cr_assert_str_eq(intern_get(&strings, re[named].name), "RegExp.test");

	struct frame rd[] = {fb_native(&strings, "read"), fb_native(&strings, "uv_fs_read"),
			     fb_native(&strings, "node::fs::Read"), builtin("Builtins_CallApiCallback"),
			     fb_js(&strings, "readSync", "node:fs", 700, 690), fb_js(&strings, "load", "/app/a.js", 5, 1)};
	cr_assert_eq(stall_class_of(&strings, rd, 6, &named), STALL_NATIVE);
	cr_assert_str_eq(intern_get(&strings, rd[named].name), "node::fs::Read", "the binding nearest the script");

	struct frame gc[] = {fb_native(&strings, "v8::internal::Heap::CollectGarbage"),
			     fb_js(&strings, "churn", "/app/a.js", 50, 48)};
	cr_assert_eq(stall_class_of(&strings, gc, 2, &named), STALL_GC);

	struct frame no_js[] = {fb_native(&strings, "uv__run_timers"), fb_native(&strings, "uv_run")};
	cr_assert_eq(stall_class_of(&strings, no_js, 2, &named), STALL_NATIVE);
	cr_assert_eq(named, 0);
	cr_assert_eq(stall_class_of(&strings, no_js, 0, &named), STALL_NATIVE, "no frames at all");
}

struct reports {
	struct stall_report r[8];
	int n;
};

static void keep(void *ctx, const struct stall_report *r)
{
	struct reports *rs = ctx;
	if (rs->n < 8)
		rs->r[rs->n] = *r;
	rs->r[rs->n].prof = NULL; /* freed with the stall */
	rs->n++;
}

static void add(struct stall_tracker *t, pid_t pid, uint64_t start, const struct frame *f, int n)
{
	struct sample s = {.time_ns = start + 1, .pid = pid, .tid = pid, .frames = f, .n = n,
			   .stall_start = start, .process_name = intern_str(&strings, "node")};
	stall_tracker_sample(t, &s, start);
}

Test(stalls, a_report_per_stall)
{
	struct reports rs = {0};
	struct stall_tracker t;
	stall_tracker_init(&t, &strings, LINES_CURRENT, keep, &rs);
	struct frame busy[] = {fb_js(&strings, "busyLoop", "/app/a.js", 9, 3), fb_js(&strings, "run", "/app/a.js", 20, 18)};
	struct frame api[] = {fb_native(&strings, "node::fs::Open"), fb_js(&strings, "openSync", "node:fs", 573, 570),
			      fb_js(&strings, "readPipe", "/app/a.js", 46, 40), fb_js(&strings, "run", "/app/a.js", 20, 18)};
	for (int i = 0; i < 9; i++)
		add(&t, 42, 1000, busy, 2);
	add(&t, 42, 1000, api, 4);
	stall_tracker_end(&t, 42, intern_str(&strings, "node"), 1000, 120000000);
	cr_assert_eq(rs.n, 1);
	const struct stall_report *r = &rs.r[0];
	cr_assert_eq(r->samples, 10);
	cr_assert_eq(r->classes[STALL_JS], 9);
	cr_assert_eq(r->classes[STALL_NATIVE], 1);
	cr_assert_str_eq(intern_get(&strings, r->class_frame[STALL_NATIVE]), "node::fs::Open");
	cr_assert_eq(r->ntop, 2);
	cr_assert_str_eq(intern_get(&strings, r->top[0].frame.name), "busyLoop");
	cr_assert_eq(r->top[0].samples, 9);
	cr_assert_str_eq(intern_get(&strings, r->top[1].frame.name), "readPipe",
			 "the application's function, not node's own openSync");
	cr_assert_eq(r->nchain, 2);
	cr_assert_eq(r->duration_ns, 120000000);
	cr_assert_not(r->began_before);

	/* the next stall's end record was lost: it ends where the one after begins */
	add(&t, 42, 5000, busy, 2);
	add(&t, 42, 9000, api, 4);
	cr_assert_eq(rs.n, 2);
	cr_assert_eq(rs.r[1].duration_ns, 4000);
	cr_assert_eq(rs.r[1].samples, 1);
	/* a stall without samples (off a CPU between them) is still reported */
	stall_tracker_end(&t, 7, intern_str(&strings, "node"), 100, 60000000);
	cr_assert_eq(rs.n, 3);
	cr_assert_eq(rs.r[2].pid, 7);
	cr_assert_eq(rs.r[2].samples, 0);
	/* sampling ends with one under way */
	stall_tracker_finish(&t, 20000);
	cr_assert_eq(rs.n, 4);
	cr_assert(rs.r[3].unfinished);
	cr_assert_eq(rs.r[3].duration_ns, 11000);
	cr_assert_eq(t.stalls, 4);
	stall_tracker_free(&t);
}

Test(stalls, under_way_when_sampling_began)
{
	struct reports rs = {0};
	struct stall_tracker t;
	stall_tracker_init(&t, &strings, LINES_CURRENT, keep, &rs);
	struct frame busy[] = {fb_js(&strings, "busyLoop", "/app/a.js", 9, 3)};
	stall_tracker_began_before(&t, 42, 500);
	add(&t, 42, 500, busy, 1);
	stall_tracker_end(&t, 42, intern_str(&strings, "node"), 500, 2000000000);
	cr_assert_eq(rs.n, 1);
	cr_assert(rs.r[0].began_before);
	/* seen outside its wait at the start, but that iteration ended short: nothing */
	stall_tracker_began_before(&t, 43, 700);
	add(&t, 43, 900, busy, 1);
	stall_tracker_end(&t, 43, intern_str(&strings, "node"), 900, 80000000);
	cr_assert_eq(rs.n, 2);
	cr_assert_not(rs.r[1].began_before);
	stall_tracker_began_before(&t, 44, 700);
	stall_tracker_finish(&t, 2000);
	cr_assert_eq(rs.n, 2, "a mark with no stall is not one");
	stall_tracker_free(&t);
}
