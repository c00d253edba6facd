/* test_stalls.c — a stall's samples: what each spent its time on (JS, GC, a synchronous native
 * call named by the binding nearest the script, a builtin of V8 named past its C++ entry), and a
 * stall's report: its classes, its innermost application functions by samples, the script frames
 * of the most frequent, an end record lost, a stall under way at the start, one unfinished. */
#include <criterion/criterion.h>

#include "../../profile/stall_tracker.h"
#include "../../walker/stall_class.h"
#include "frame_builders.h"

#include <string.h>

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

	struct frame cold[] = {builtin("Builtins_MultiplySmi_Baseline"), fb_js(&strings, "busyLoop", "/app/a.js", 9, 3)};
	cr_assert_eq(stall_class_of(&strings, cold, 2, &named), STALL_JS, "baseline code's own stub runs the script");
	struct frame interp[] = {builtin("Builtins_JumpLoopHandler"), fb_js(&strings, "busyLoop", "/app/a.js", 9, 3)};
	cr_assert_eq(stall_class_of(&strings, interp, 2, &named), STALL_JS, "a bytecode handler runs the script");
	struct frame called[] = {builtin("Builtins_ArrayPrototypeSort"), builtin("Builtins_CallFunction_ReceiverIsAny_Baseline"),
				 fb_js(&strings, "busyLoop", "/app/a.js", 9, 3)};
	cr_assert_eq(stall_class_of(&strings, called, 3, &named), STALL_BUILTIN, "a builtin called from baseline code");
	cr_assert_str_eq(intern_get(&strings, called[named].name), "Builtins_ArrayPrototypeSort",
			 "past the stub that called it");

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

/* A stall's row holds one value of each of PREFIX_stalls' columns, in their order and types:
 * read back column by column by the schema's own list, it is used up exactly. */
#include "../../export/ch_report.h"
#include "../../export/ch_schema.h"
#include "../../export/rowbinary.h"
#include "../../export/stall_rows.h"

static void skip_value(struct rb_cursor *c, const char *type)
{
	const char *s;
	size_t len;
	if (!strcmp(type, "String")) {
		cr_assert(rb_get_string(c, 1 << 20, &s, &len));
	} else if (!strcmp(type, "Array(String)")) {
		for (uint64_t n = rb_get_varuint(c); n; n--)
			cr_assert(rb_get_string(c, 1 << 20, &s, &len));
	} else if (!strcmp(type, "Array(UInt64)")) {
		for (uint64_t n = rb_get_varuint(c); n; n--)
			rb_get_u64(c);
	} else if (!strcmp(type, "UInt64") || !strcmp(type, "Float64")) {
		rb_get_u64(c);
	} else if (!strcmp(type, "UInt32") || !strcmp(type, "DateTime")) {
		rb_get_u32(c);
	} else if (!strcmp(type, "UInt8")) {
		cr_assert(c->p < c->end);
		c->p++;
	} else {
		cr_assert_fail("a column type the test does not know: %s", type);
	}
	cr_assert_not(c->failed, "a value of type %s", type);
}

struct row_maker {
	struct row_context rc;
	struct strbuf rows;
};

/* the row is made in the callback, while the stall's profile lives */
static void make_row(void *ctx, const struct stall_report *r)
{
	struct row_maker *m = ctx;
	stall_row_add(&m->rows, &m->rc, &strings, r, 1764300000123LL);
}

Test(stalls, a_row_per_stall_in_the_tables_columns)
{
	struct row_maker m;
	row_context_init(&m.rc, "svc", 997);
	sb_init(&m.rows);
	struct stall_tracker t;
	stall_tracker_init(&t, &strings, LINES_CURRENT, make_row, &m);
	struct frame busy[] = {fb_js(&strings, "busyLoop", "/app/a.js", 9, 3), fb_js(&strings, "run", "/app/a.js", 20, 18)};
	struct frame other[] = {fb_js(&strings, "busyLoop", "/app/a.js", 11, 3), fb_js(&strings, "run", "/app/a.js", 20, 18)};
	for (int i = 0; i < 3; i++)
		add(&t, 42, 1000, busy, 2);
	add(&t, 42, 1000, other, 2);
	stall_tracker_end(&t, 42, intern_str(&strings, "node"), 1000, 120000000);
	struct rb_cursor c;
	rb_cursor_init(&c, m.rows.s, m.rows.len);
	size_t hashes_at = 0;
	for (size_t i = 0; i < ch_stalls_table.ncolumns; i++) {
		if (!strcmp(ch_stalls_table.columns[i].name, "stack_hashes"))
			hashes_at = (size_t)((const char *)c.p - m.rows.s);
		skip_value(&c, ch_stalls_table.columns[i].type);
	}
	cr_assert(rb_at_end(&c), "the row is used up by the columns exactly");
	/* the second and the millisecond it began; its two stacks, 3 and 1 samples */
	rb_cursor_init(&c, m.rows.s, m.rows.len);
	cr_assert_eq(rb_get_u32(&c), 1764300000);
	cr_assert_eq(rb_get_u64(&c), 1764300000123ULL);
	rb_cursor_init(&c, m.rows.s + hashes_at, m.rows.len - hashes_at);
	cr_assert_eq(rb_get_varuint(&c), 2);
	rb_get_u64(&c);
	rb_get_u64(&c);
	cr_assert_eq(rb_get_varuint(&c), 2);
	uint64_t a = rb_get_u64(&c), b = rb_get_u64(&c);
	cr_assert(a + b == 4 && (a == 3 || b == 3), "counts %lu and %lu", (unsigned long)a, (unsigned long)b);
	sb_free(&m.rows);
	row_context_free(&m.rc);
	stall_tracker_free(&t);
}

Test(stalls, the_longest_stalls_decoded_and_malformed_answers_refused)
{
	struct strbuf a;
	sb_init(&a);
	rb_put_u64(&a, 1764300000123ULL);
	rb_put_f64(&a, 123.5);
	rb_put_u32(&a, 42);
	rb_put_u32(&a, 10);
	for (uint32_t k = 0; k < 4; k++)
		rb_put_u32(&a, k + 1);
	rb_put_string(&a, "host1", 5);
	rb_put_string(&a, "svc", 3);
	rb_put_string(&a, "f (a.js:1) < g (a.js:9)", 23);
	struct stall_row out[2];
	size_t n;
	struct strbuf why;
	sb_init(&why);
	cr_assert(ch_decode_stall_rows(a.s, a.len, out, 2, &n, &why), "%s", why.s);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].start_ms, 1764300000123LL);
	cr_assert_float_eq(out[0].duration_ms, 123.5, 1e-9);
	cr_assert_eq(out[0].pid, 42);
	cr_assert_eq(out[0].samples, 10);
	cr_assert_eq(out[0].classes[3], 4);
	cr_assert_str_eq(out[0].service, "svc");
	cr_assert_str_eq(out[0].frames, "f (a.js:1) < g (a.js:9)");
	cr_assert_not(ch_decode_stall_rows(a.s, a.len - 1, out, 2, &n, &why), "cut short");
	cr_assert_not(ch_decode_stall_rows(a.s, a.len, out, 0, &n, &why), "more rows than asked for");
	cr_assert(ch_decode_stall_rows(NULL, 0, out, 2, &n, &why) && n == 0, "no stalls");
	sb_free(&a);
	sb_free(&why);
}
