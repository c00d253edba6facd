/* test_export.c — the pure parts of the ClickHouse exporter (export/): addresses, RowBinary both
 * ways (and truncated answers), the stack hash, SQL quoting and --where filters, times, folded
 * frame text back to frames, package.json names, environment blocks, node's main script, the
 * tables' column check, the spool's files and its limit, and a period's rows decoded back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../export/ch_check.h"
#include "../../export/ch_http.h"
#include "../../export/ch_report.h"
#include "../../export/ch_schema.h"
#include "../../export/ch_sql.h"
#include "../../export/ch_url.h"
#include "../../export/frame_parse.h"
#include "../../export/gzip_buf.h"
#include "../../export/hash_index.h"
#include "../../export/period_rows.h"
#include "../../export/rowbinary.h"
#include "../../export/service_name.h"
#include "../../export/spool.h"
#include "../../export/stack_hash.h"
#include "../../profile/frame_text.h"
#include "../../profile/writers.h"
#include "../../export/rowbinary.h"

static bool url(const char *text, struct ch_url *u)
{
	char why[256];
	return ch_url_parse(text, u, why, sizeof(why));
}

Test(export, url_forms)
{
	struct ch_url u;
	cr_assert(url("clickhouse://ch.internal:8124/profiles", &u));
	cr_assert_str_eq(u.host, "ch.internal");
	cr_assert_eq(u.port, 8124);
	cr_assert_str_eq(u.database, "profiles");
	cr_assert_str_eq(u.table, "v8walk");
	cr_assert_not(u.tls);
	cr_assert_str_eq(u.base, "http://ch.internal:8124/");
	cr_assert(url("clickhouses://h/db.fleet", &u));
	cr_assert(u.tls);
	cr_assert_eq(u.port, 8443);
	cr_assert_str_eq(u.table, "fleet");
	cr_assert_str_eq(u.base, "https://h:8443/");
	cr_assert(url("https://[::1]:9/db", &u));
	cr_assert_str_eq(u.host, "[::1]");
	cr_assert_eq(u.port, 9);
	cr_assert(url("http://127.0.0.1/db", &u));
	cr_assert_eq(u.port, 8123);
}

Test(export, url_refused)
{
	struct ch_url u;
	char why[256];
	cr_assert_not(ch_url_parse("clickhouse://user:pw@h:8123/db", &u, why, sizeof(why)));
	cr_assert(strstr(why, "credentials"), "%s", why);
	cr_assert_not(url("ftp://h/db", &u));
	cr_assert_not(url("clickhouse://h:8123", &u));
	cr_assert_not(url("clickhouse://h:0/db", &u));
	cr_assert_not(url("clickhouse://h:70000/db", &u));
	cr_assert_not(url("clickhouse://h:12x/db", &u));
	cr_assert_not(url("clickhouse://h/db;DROP", &u));
	cr_assert_not(url("clickhouse://h/db.t'x", &u));
	cr_assert_not(url("clickhouse://h/1db", &u));
	cr_assert_not(url("clickhouse://h h/db", &u));
	cr_assert_not(url("clickhouse:///db", &u));
}

Test(export, rowbinary_round_trip)
{
	struct strbuf b;
	sb_init(&b);
	rb_put_u64(&b, 0x0102030405060708ull);
	rb_put_varuint(&b, 300);
	rb_put_string(&b, "a\0b", 3);
	struct rb_cursor c;
	rb_cursor_init(&c, b.s, b.len);
	cr_assert_eq(rb_get_u64(&c), 0x0102030405060708ull);
	cr_assert_eq(rb_get_varuint(&c), 300);
	const char *s;
	size_t len;
	cr_assert(rb_get_string(&c, 16, &s, &len));
	cr_assert_eq(len, 3);
	cr_assert(!memcmp(s, "a\0b", 3));
	cr_assert(rb_at_end(&c));
	/* every truncation fails, never reads past the end */
	for (size_t cut = 0; cut < b.len; cut++) {
		rb_cursor_init(&c, b.s, cut);
		rb_get_u64(&c);
		rb_get_varuint(&c);
		rb_get_string(&c, 16, &s, &len);
		cr_assert(c.failed, "cut at %zu", cut);
	}
	/* a string longer than allowed */
	rb_cursor_init(&c, b.s + 10, b.len - 10);
	cr_assert_not(rb_get_string(&c, 2, &s, &len));
	/* a varint that never ends */
	const unsigned char endless[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	rb_cursor_init(&c, endless, sizeof(endless));
	rb_get_varuint(&c);
	cr_assert(c.failed);
	sb_free(&b);
}

Test(export, decode_counts)
{
	struct strbuf b;
	sb_init(&b);
	rb_put_u64(&b, 7);
	rb_put_u64(&b, 70);
	rb_put_u64(&b, 9);
	rb_put_u64(&b, 90);
	struct stack_count *sc;
	size_t n;
	struct strbuf why;
	sb_init(&why);
	cr_assert(ch_decode_counts(b.s, b.len, &sc, &n, &why));
	cr_assert_eq(n, 2);
	cr_assert_eq(sc[1].hash, 9);
	cr_assert_eq(sc[1].count, 90);
	free(sc);
	cr_assert_not(ch_decode_counts(b.s, b.len - 1, &sc, &n, &why));
	free(sc);
	sb_free(&b);
	sb_free(&why);
}

Test(export, stack_hash_is_fnv1a64)
{
	/* published FNV-1a 64 test vectors */
	cr_assert_eq(stack_hash_of("", 0), 0xcbf29ce484222325ull);
	cr_assert_eq(stack_hash_of("a", 1), 0xaf63dc4c8601ec8cull);
	cr_assert_eq(stack_hash_of("foobar", 6), 0x85944171f73967e8ull);
	cr_assert_neq(stack_hash_of("a;b", 3), stack_hash_of("b;a", 3));
}

Test(export, quote_and_where)
{
	struct strbuf q, why;
	sb_init(&q);
	sb_init(&why);
	cr_assert(ch_quote(&q, "it's a \\ test", 13));
	cr_assert_str_eq(q.s, "'it\\'s a \\\\ test'");
	sb_reset(&q);
	cr_assert_not(ch_quote(&q, "a\nb", 3));
	cr_assert_eq(q.len, 0);
	cr_assert(ch_where_condition(&q, "service=x' OR 1=1 --", &why));
	cr_assert_str_eq(q.s, " AND service = 'x\\' OR 1=1 --'");
	sb_reset(&q);
	cr_assert(ch_where_condition(&q, "env=prod", &why));
	cr_assert_str_eq(q.s, " AND labels.value[indexOf(labels.key, 'env')] = 'prod'");
	sb_reset(&q);
	cr_assert(ch_where_condition(&q, "pid=42", &why));
	cr_assert_str_eq(q.s, " AND pid = 42");
	sb_reset(&q);
	cr_assert_not(ch_where_condition(&q, "pid=42 OR 1", &why));
	cr_assert_not(ch_where_condition(&q, "a b=1", &why));
	cr_assert_not(ch_where_condition(&q, "noequals", &why));
	cr_assert_not(ch_where_condition(&q, "host=a\tb", &why));
	cr_assert_eq(q.len, 0);
	sb_free(&q);
	sb_free(&why);
}

Test(export, times)
{
	int64_t t;
	cr_assert(ch_parse_time("2h", 100000, &t));
	cr_assert_eq(t, 100000 - 7200);
	cr_assert(ch_parse_time("90s", 1000, &t));
	cr_assert_eq(t, 910);
	cr_assert(ch_parse_time("1d", 100000, &t));
	cr_assert_eq(t, 100000 - 86400);
	cr_assert(ch_parse_time("now", 5, &t));
	cr_assert_eq(t, 5);
	cr_assert(ch_parse_time("@1700000000", 5, &t));
	cr_assert_eq(t, 1700000000);
	cr_assert(ch_parse_time("1970-01-02 00:00:10", 0, &t));
	cr_assert_eq(t, 86410);
	cr_assert(ch_parse_time("1970-01-02T00:01", 0, &t));
	cr_assert_eq(t, 86460);
	cr_assert_not(ch_parse_time("2x", 0, &t));
	cr_assert_not(ch_parse_time("yesterday", 0, &t));
	cr_assert_not(ch_parse_time("@", 0, &t));
}

/* frame_text(frame_parse(text)) == text */
static void round_trip(const char *text, uint8_t kind)
{
	struct intern strings;
	intern_init(&strings);
	intern_str(&strings, "");
	struct frame f;
	frame_parse(&strings, text, strlen(text), &f);
	cr_assert_eq(f.kind, kind, "%s", text);
	struct strbuf out;
	sb_init(&out);
	frame_text(&strings, &f, true, &out);
	cr_assert_str_eq(out.s, text);
	sb_free(&out);
	intern_free(&strings);
}

Test(export, frame_text_round_trip)
{
	round_trip("measure (/app/demo.js:10)_[j]", FK_JS);
	round_trip("measure (/app/demo.js:7)_[i]", FK_JS_INLINED);
	round_trip("async placeOrder (/app/shop.js:31)_[a]", FK_JS_ASYNC);
	round_trip("(anonymous) (node:internal/timers:483)_[j]", FK_JS);
	round_trip("Immediate.main [as _onImmediate] (/a (b)/x.js:41)_[j]", FK_JS);
	round_trip("noFile_[j]", FK_JS);
	round_trip("f (/x.js)_[j]", FK_JS);
	round_trip("f (C:0)_[j]", FK_JS);
	round_trip("node::Start", FK_NATIVE);
	round_trip("v8::internal::(anonymous namespace)::Invoke", FK_NATIVE);
	round_trip("do_syscall_64_[k]", FK_KERNEL);
	round_trip("<wasm> (wasm://wasm/445a96ba)_[w]", FK_WASM);
	round_trip("<wasm> (http://localhost:8080)_[w]", FK_WASM);
	round_trip("_[j]", FK_JS);
}

/* Two empty profiles over one string table (its entry 0 the empty string). */
static void two_profiles(struct intern *strings, struct profile *a, struct profile *b)
{
	intern_init(strings);
	intern_str(strings, "");
	profile_init(a, strings, LINES_CURRENT);
	profile_init(b, strings, LINES_CURRENT);
}

static void two_profiles_free(struct intern *strings, struct profile *a, struct profile *b)
{
	profile_free(a);
	profile_free(b);
	intern_free(strings);
}

/* a period's stacks rows keep the kinds folded text does not say (a builtin, a V8 frame type):
 * read back as report reads them, a builtin is a builtin again, the folded text and the hash are
 * those of the agent's own folded output */
Test(export, stacks_rows_keep_frame_kinds)
{
	struct intern strings;
	struct profile p, back;
	two_profiles(&strings, &p, &back);
	struct frame f[4];
	frame_parse(&strings, "leaf (/a.js:3)_[j]", 18, &f[0]);
	memset(&f[1], 0, sizeof(f[1]));
	f[1].kind = FK_BUILTIN;
	f[1].name = f[1].fn_name = intern_str(&strings, "Builtins_InterpreterEntryTrampoline");
	f[2] = f[1];
	f[2].kind = FK_V8_TYPED;
	f[2].name = f[2].fn_name = intern_str(&strings, "[entry]");
	frame_parse(&strings, "node::Start", 11, &f[3]);
	struct sample s = {.pid = getpid(), .tid = getpid(), .process_name = intern_str(&strings, "node"),
			   .thread_role = intern_str(&strings, "main"), .frames = f, .n = 4};
	profile_add_weighted(&p, &s, 3);
	struct row_context rc;
	row_context_init(&rc, "svc", 99);
	struct period_batch b;
	period_batch_init(&b);
	period_batch_fill(&b, &rc, &p, 1000);
	cr_assert_eq(b.nstacks, 1);
	const char *folded = "node::Start;[entry];Builtins_InterpreterEntryTrampoline;leaf (/a.js:3)_[j]";
	cr_assert_eq(b.stack_hashes[0], stack_hash_of(folded, strlen(folded)), "the hash of the folded text");
	cr_assert(memmem(b.stacks.s, b.stacks.len, "Builtins_InterpreterEntryTrampoline_[b]", 39), "stored with its marker");
	struct stack_count counts[] = {{b.stack_hashes[0], 3}};
	size_t missing;
	struct strbuf why;
	sb_init(&why);
	cr_assert(ch_report_add_stacks(&back, counts, 1, b.stacks.s, b.stacks.len, "svc", &missing, &why), "%s", why.s);
	bool builtin = false, typed = false;
	for (size_t i = 0; i < back.nframes; i++) {
		builtin |= back.frames[i].kind == FK_BUILTIN &&
			   !strcmp(intern_get(&strings, back.frames[i].name), "Builtins_InterpreterEntryTrampoline");
		typed |= back.frames[i].kind == FK_V8_TYPED && !strcmp(intern_get(&strings, back.frames[i].name), "[entry]");
	}
	cr_assert(builtin && typed, "the kinds came back");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	cr_assert_eq(write_folded(&back, &(struct write_opts){0}, out), 0);
	fclose(out);
	cr_assert(strstr(text, folded) && strstr(text, " 3\n"), "%s", text);
	free(text);
	sb_free(&why);
	period_batch_free(&b);
	row_context_free(&rc);
	two_profiles_free(&strings, &p, &back);
}

Test(export, package_json_name)
{
	struct strbuf out;
	sb_init(&out);
	const char *pj = "{\"dependencies\": {\"name\": \"inner\"}, \"name\" : \"checkout\", \"x\": [\"name\"]}";
	cr_assert(package_json_name(pj, strlen(pj), &out));
	cr_assert_str_eq(out.s, "checkout");
	const char *nested_only = "{\"a\": {\"name\": \"inner\"}}";
	cr_assert_not(package_json_name(nested_only, strlen(nested_only), &out));
	const char *escaped = "{\"name\": \"a\\\"b\"}";
	cr_assert_not(package_json_name(escaped, strlen(escaped), &out));
	const char *cut = "{\"name\": \"abc";
	cr_assert_not(package_json_name(cut, strlen(cut), &out));
	const char *number = "{\"name\": 5}";
	cr_assert_not(package_json_name(number, strlen(number), &out));
	sb_free(&out);
}

Test(export, environ_and_main_script)
{
	struct strbuf out;
	sb_init(&out);
	const char env[] = "PATH=/bin\0V8WALK_SERVICE=billing\0HOME=/root";
	cr_assert(environ_value(env, sizeof(env) - 1, "V8WALK_SERVICE", &out));
	cr_assert_str_eq(out.s, "billing");
	const char bad[] = "V8WALK_SERVICE=a\tb";
	cr_assert_not(environ_value(bad, sizeof(bad) - 1, "V8WALK_SERVICE", &out));
	const char unterminated[] = {'V', '8', 'W', 'A', 'L', 'K', '_', 'S', 'E', 'R', 'V', 'I', 'C', 'E', '=', 'x'};
	cr_assert(environ_value(unterminated, sizeof(unterminated), "V8WALK_SERVICE", &out));
	cr_assert_str_eq(out.s, "x");
	const char argv1[] = "node\0--max-old-space-size=100\0-r\0dotenv/config\0app/server.js\0--port\0";
	cr_assert(main_script_of(argv1, sizeof(argv1) - 1, &out));
	cr_assert_str_eq(out.s, "app/server.js");
	const char eval[] = "node\0-e\0while(1);\0";
	cr_assert_not(main_script_of(eval, sizeof(eval) - 1, &out));
	const char repl[] = "node\0";
	cr_assert_not(main_script_of(repl, sizeof(repl) - 1, &out));
	sb_free(&out);
}

Test(export, columns_match)
{
	struct strbuf why;
	sb_init(&why);
	const char *good = "db.t_stacks\tstack_hash\tUInt64\ndb.t_stacks\tframes\tArray(String)\n";
	cr_assert(ch_columns_match(good, strlen(good), "db.t_stacks", &ch_stacks_table, &why));
	const char *typed = "db.t_stacks\tstack_hash\tString\ndb.t_stacks\tframes\tArray(String)\n";
	cr_assert_not(ch_columns_match(typed, strlen(typed), "db.t_stacks", &ch_stacks_table, &why));
	cr_assert(strstr(why.s, "not v8walk's"), "%s", why.s);
	sb_reset(&why);
	cr_assert_not(ch_columns_match("", 0, "db.t_samples", &ch_samples_table, &why));
	cr_assert(strstr(why.s, "no table"), "%s", why.s);
	sb_free(&why);
}

Test(export, spool_names_and_limit)
{
	uint64_t seq;
	cr_assert(spool_name_seq("00000000000000ff.v8wspool", &seq));
	cr_assert_eq(seq, 255);
	cr_assert_not(spool_name_seq("00000000000000ff.v8wspool.tmp", &seq));
	cr_assert_not(spool_name_seq("00000000000000FF.v8wspool", &seq));
	cr_assert_not(spool_name_seq("ff.v8wspool", &seq));
	struct spool_entry e[] = {{1, 100}, {2, 100}, {3, 100}};
	cr_assert_eq(spool_over_limit(e, 3, 300), 0);
	cr_assert_eq(spool_over_limit(e, 3, 250), 1);
	cr_assert_eq(spool_over_limit(e, 3, 100), 2);
	cr_assert_eq(spool_over_limit(e, 3, 50), 3);
	size_t off[SPOOL_BODIES], len[SPOOL_BODIES];
	const char ok[] = "V8WSPOOL2 2 3 1\nabcdef";
	cr_assert(spool_parse(ok, sizeof(ok) - 1, off, len));
	cr_assert_eq(len[SPOOL_STACKS], 2);
	cr_assert_eq(len[SPOOL_SAMPLES], 3);
	cr_assert_eq(len[SPOOL_STALLS], 1);
	cr_assert(!memcmp(ok + off[SPOOL_SAMPLES], "cde", 3));
	cr_assert(!memcmp(ok + off[SPOOL_STALLS], "f", 1));
	/* a file of an agent that sent no stalls: two bodies, no stalls */
	const char old[] = "V8WSPOOL1 2 3\nabcde";
	cr_assert(spool_parse(old, sizeof(old) - 1, off, len));
	cr_assert_eq(len[SPOOL_SAMPLES], 3);
	cr_assert_eq(len[SPOOL_STALLS], 0);
	const char *bad[] = {"V8WSPOOL1 2 3\nabcd", "V8WSPOOL1 2 3\nabcdef", "V8WSPOOL1 2\nab",
			     "V8WSPOOL2 2 3\nabcde", "V8WSPOOL1  2 3\nabcde", "V8WSPOOL1 -1 3\nabcde",
			     "V8WSPOOL1 99999999999999999999 1\na", "V8WSPOOL1 2 3", "V8WSPOOL1 2 3 0\nabcde",
			     "V8WSPOOL2 2 3 1 \nabcdef", "V8WSPOOL2 2 3  1\nabcdef", "V8WSPOOL3 1 1 1\nabc"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(spool_parse(bad[i], strlen(bad[i]), off, len), "%s", bad[i]);
}

Test(export, spool_directory)
{
	char dir[] = "/tmp/v8walk-spool-test-XXXXXX";
	cr_assert(mkdtemp(dir));
	struct spool s;
	struct strbuf why, got[SPOOL_BODIES];
	sb_init(&why);
	for (int i = 0; i < SPOOL_BODIES; i++)
		sb_init(&got[i]);
	cr_assert(spool_open(&s, dir, 200, &why), "%s", why.s);
	for (int i = 0; i < 5; i++) {
		char body[64];
		memset(body, 'a' + i, sizeof(body));
		struct spool_bodies b = {{body, body, body}, {10, 30, 0}};
		cr_assert(spool_put(&s, &b, &why), "%s", why.s);
	}
	/* each file is 18 header bytes + 40: 3 fit in 200, the 2 oldest were dropped */
	struct spool_entry e[8];
	size_t n = spool_list(&s, e, 8);
	cr_assert_eq(n, 3);
	cr_assert_eq(s.dropped, 2);
	cr_assert_eq(e[0].seq, 3);
	cr_assert(spool_read(&s, e[0].seq, got, &why), "%s", why.s);
	cr_assert_eq(got[SPOOL_STACKS].len, 10);
	cr_assert_eq(got[SPOOL_SAMPLES].len, 30);
	cr_assert_eq(got[SPOOL_STALLS].len, 0);
	cr_assert_eq(got[SPOOL_STACKS].s[0], 'c');
	/* one agent at a time; reopened: numbering goes on after the newest file */
	struct spool again;
	cr_assert_not(spool_open(&again, dir, 200, &why));
	cr_assert(strstr(why.s, "in use by another v8walk"), "%s", why.s);
	spool_close(&s);
	cr_assert(spool_open(&again, dir, 200, &why));
	cr_assert_eq(again.next_seq, 6);
	spool_close(&again);
	/* a damaged file is refused */
	char path[512];
	snprintf(path, sizeof(path), "%s/%016x.v8wspool", dir, 5);
	FILE *f = fopen(path, "w");
	fputs("V8WSPOOL1 10 30\nshort", f);
	fclose(f);
	cr_assert_not(spool_read(&s, 5, got, &why));
	for (size_t i = 0; i < n; i++)
		spool_remove(&s, e[i].seq);
	cr_assert_eq(spool_list(&s, e, 8), 0);
	char lock[512];
	snprintf(lock, sizeof(lock), "%s/.lock", dir);
	unlink(lock);
	rmdir(dir);
	sb_free(&why);
	for (int i = 0; i < SPOOL_BODIES; i++)
		sb_free(&got[i]);
}

Test(export, gzip)
{
	struct strbuf gz;
	sb_init(&gz);
	cr_assert(gzip_buf("hello hello hello", 17, &gz));
	cr_assert_geq(gz.len, 18);
	cr_assert_eq((unsigned char)gz.s[0], 0x1f);
	cr_assert_eq((unsigned char)gz.s[1], 0x8b);
	sb_free(&gz);
}

Test(export, hash_index_holds_zero)
{
	struct hash_index h;
	hash_index_init(&h, 0);
	uint64_t v;
	cr_assert_not(hash_index_get(&h, 0, &v));
	hash_index_put(&h, 0, 7);
	hash_index_put(&h, 1, 8);
	cr_assert(hash_index_get(&h, 0, &v));
	cr_assert_eq(v, 7);
	cr_assert(hash_index_get(&h, 1, &v));
	cr_assert_eq(v, 8);
	hash_index_free(&h);
}

/* A weighted add is the same as that many single adds, records included. */
Test(export, weighted_add_equals_single_adds)
{
	struct intern strings;
	struct profile one, many;
	two_profiles(&strings, &one, &many);
	struct frame f[2];
	frame_parse(&strings, "leaf (/a.js:3)_[j]", 18, &f[0]);
	frame_parse(&strings, "node::Start", 11, &f[1]);
	struct sample s = {.process_name = intern_str(&strings, "svc"), .thread_role = intern_str(&strings, "all"),
			   .frames = f, .n = 2};
	profile_add_weighted(&one, &s, 5);
	for (int i = 0; i < 5; i++)
		profile_add(&many, &s);
	cr_assert_eq(one.samples, 5);
	cr_assert_eq(one.nrecs, many.nrecs);
	cr_assert_eq(one.nnodes, many.nnodes);
	for (size_t i = 0; i < one.nnodes; i++) {
		cr_assert_eq(one.nodes[i].total, many.nodes[i].total);
		cr_assert_eq(one.nodes[i].self, many.nodes[i].self);
	}
	two_profiles_free(&strings, &one, &many);
}

/* Elements of the JSON array after `"key":[` in text (numbers, no nesting), and their sum. */
static size_t json_numbers(const char *text, const char *key, double *sum)
{
	char want[64];
	snprintf(want, sizeof(want), "\"%s\":[", key);
	const char *at = strstr(text, want);
	cr_assert(at, "%s in %s", key, text);
	at += strlen(want);
	size_t n = 0;
	*sum = 0;
	while (*at != ']') {
		char *end;
		*sum += strtod(at, &end);
		cr_assert(end != at, "a number in %s at %.20s", key, at);
		n++;
		at = *end == ',' ? end + 1 : end;
	}
	return n;
}

static char *written(const struct profile *p, profile_write_fn write)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_eq(write(p, &(struct write_opts){0}, f), 0);
	fclose(f);
	return text;
}

/* report's profile keeps weighted stacks, no record per sample: the same flame graph, pprof and
 * tree as a timed one; speedscope weighs one sample per stack; a cpuprofile lists every
 * sample, a period apart */
Test(export, untimed_profile_keeps_counts_not_samples)
{
	struct intern strings;
	struct profile timed, untimed;
	two_profiles(&strings, &timed, &untimed);
	profile_untimed(&untimed);
	struct frame f[2];
	frame_parse(&strings, "leaf (/a.js:3)_[j]", 18, &f[0]);
	frame_parse(&strings, "main (/a.js:9)_[j]", 18, &f[1]);
	struct sample s = {.process_name = intern_str(&strings, "svc"), .thread_role = intern_str(&strings, "all"),
			   .frames = f, .n = 2};
	struct sample outer = s;
	outer.frames = &f[1];
	outer.n = 1;
	for (struct profile *p = &timed; p; p = p == &timed ? &untimed : NULL) {
		profile_add_weighted(p, &s, 5);
		profile_add_weighted(p, &outer, 3);
	}
	cr_assert_eq(untimed.samples, 8);
	cr_assert_eq(untimed.nrecs, 0, "no record per sample");
	cr_assert_eq(timed.nrecs, 8);
	profile_write_fn same[] = {write_folded, write_tree, write_svg, write_pprof};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char *a = written(&timed, same[i]), *b = written(&untimed, same[i]);
		cr_assert_str_eq(a, b, "writer %zu", i);
		free(a);
		free(b);
	}
	double sum;
	char *ss = written(&untimed, write_speedscope);
	cr_assert_eq(json_numbers(ss, "weights", &sum), 2, "one sample per stack: %s", ss);
	cr_assert_float_eq(sum, 8 * 10000.0, 1e-6, "%s", ss);
	free(ss);
	char *cp = written(&untimed, write_cpuprofile);
	cr_assert_eq(json_numbers(cp, "samples", &sum), 8, "%s", cp);
	cr_assert_eq(json_numbers(cp, "timeDeltas", &sum), 8, "%s", cp);
	cr_assert_float_eq(sum, 8 * 10000.0, 1e-6, "%s", cp);
	free(cp);
	two_profiles_free(&strings, &timed, &untimed);
}

/* report's stacks answer: counted stacks added with their counts, one the answer lacks shown as
 * "not stored", an answer naming a stack not asked for refused. */
Test(export, report_add_stacks)
{
	struct intern strings;
	intern_init(&strings);
	intern_str(&strings, "");
	struct profile p;
	profile_init(&p, &strings, LINES_CURRENT);
	struct strbuf ans, why;
	sb_init(&ans);
	sb_init(&why);
	rb_put_u64(&ans, 11);
	rb_put_varuint(&ans, 2);
	rb_put_string(&ans, "main", 4);
	rb_put_string(&ans, "leaf (/a.js:3)_[j]", 18);
	struct stack_count counts[] = {{11, 5}, {22, 2}};
	size_t missing;
	cr_assert(ch_report_add_stacks(&p, counts, 2, ans.s, ans.len, "svc", &missing, &why), "%s", why.s);
	cr_assert_eq(missing, 1);
	cr_assert_eq(p.samples, 7);
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);
	cr_assert_eq(write_folded(&p, &(struct write_opts){0}, f), 0);
	fclose(f);
	cr_assert(strstr(text, "svc (0);all (0);main;leaf (/a.js:3)_[j] 5\n"), "%s", text);
	cr_assert(strstr(text, "svc (0);all (0);[v8walk: stack 0000000000000016 not stored] 2\n"), "%s", text);
	free(text);
	profile_free(&p);
	profile_init(&p, &strings, LINES_CURRENT);
	rb_put_u64(&ans, 99); /* not asked for */
	rb_put_varuint(&ans, 0);
	cr_assert_not(ch_report_add_stacks(&p, counts, 2, ans.s, ans.len, "svc", &missing, &why));
	profile_free(&p);
	sb_free(&ans);
	sb_free(&why);
	intern_free(&strings);
}

/* --ttl-days: the samples and stalls tables (local, under a cluster) expire rows that many days
 * after their time; the stacks table and the Distributed tables carry no TTL; without it none
 * does. (Debian's ClickHouse 18.16 predates TTL, so the clause is checked here as text, not run.) */
Test(export, schema_ttl_goes_on_the_samples_and_stalls_merge_trees_only)
{
	struct strbuf st[CH_SCHEMA_MAX_STATEMENTS];
	size_t n = ch_schema_statements("db", "v8walk", "two", 30, st);
	cr_assert_eq(n, 7);
	cr_assert_str_eq(st[0].s, "CREATE DATABASE IF NOT EXISTS db ON CLUSTER two", "the database first");
	int with_ttl = 0;
	for (size_t i = 0; i < n; i++) {
		if (strstr(st[i].s, "TTL bucket + INTERVAL 30 DAY")) {
			with_ttl++;
			cr_expect(strstr(st[i].s, "db.v8walk_local_samples") != NULL, "%s", st[i].s);
			cr_expect(strstr(st[i].s, "ORDER BY (service, bucket, host, stack_hash)\nTTL") != NULL,
				  "the TTL follows the engine's ORDER BY: %s", st[i].s);
		}
		if (strstr(st[i].s, "TTL time + INTERVAL 30 DAY")) {
			with_ttl++;
			cr_expect(strstr(st[i].s, "db.v8walk_local_stalls") != NULL, "%s", st[i].s);
		}
		sb_free(&st[i]);
	}
	cr_expect_eq(with_ttl, 2);
	n = ch_schema_statements("db", "v8walk", NULL, 0, st);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(st[0].s, "CREATE DATABASE IF NOT EXISTS db");
	for (size_t i = 0; i < n; i++) {
		cr_expect_null(strstr(st[i].s, "TTL"), "%s", st[i].s);
		sb_free(&st[i]);
	}
}

/* a process in a container: its samples rows carry container=ID after the --label ones, a host
 * process's do not; the folded root names the container */
Test(export, container_label_on_sample_rows)
{
	struct intern strings;
	struct profile p, unused;
	two_profiles(&strings, &p, &unused);
	struct frame f;
	frame_parse(&strings, "leaf (/a.js:3)_[j]", 18, &f);
	struct sample in = {.pid = 4242, .tid = 4242, .process_name = intern_str(&strings, "node"),
			    .thread_role = intern_str(&strings, "main"),
			    .container = intern_str(&strings, "3ad56695c0c8") + 1, .frames = &f, .n = 1};
	struct sample host = in;
	host.pid = host.tid = 4343;
	host.container = 0;
	profile_add(&p, &in);
	profile_add(&p, &host);
	struct row_context rc;
	row_context_init(&rc, NULL, 99);
	rc.labels[0] = (struct export_label){.key = "env", .value = "prod"};
	rc.nlabels = 1;
	struct period_batch b;
	period_batch_init(&b);
	period_batch_fill(&b, &rc, &p, 1000);
	cr_assert_eq(b.rows, 2);
	static const char contained[] = "\x02\x03" "env" "\x09" "container" "\x02\x04" "prod" "\x0c" "3ad56695c0c8";
	static const char plain[] = "\x01\x03" "env" "\x01\x04" "prod" "\xf7\x10\x00\x00"; /* pid 4343 */
	cr_assert(memmem(b.samples.s, b.samples.len, contained, sizeof(contained) - 1), "the container's row");
	cr_assert(memmem(b.samples.s, b.samples.len, plain, sizeof(plain) - 1), "the host process's row: no container label");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	cr_assert_eq(write_folded(&p, &(struct write_opts){0}, out), 0);
	fclose(out);
	cr_assert(strstr(text, "node [container=3ad56695c0c8] (4242);"), "%s", text);
	cr_assert(strstr(text, "node (4343);"), "%s", text);
	free(text);
	period_batch_free(&b);
	row_context_free(&rc);
	two_profiles_free(&strings, &p, &unused);
}
