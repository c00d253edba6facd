/* test_sourcemap.c — the source map decoder over crafted buffers: plain and index maps, the
 * lookup Node does, bad VLQ, huge numbers, out-of-range indices, deep nesting, hostile JSON,
 * oversized input; plus finding the sourceMappingURL comment, resolving URLs and data: URLs. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../sourcemap/data_url.h"
#include "../../sourcemap/json.h"
#include "../../sourcemap/locate.h"
#include "../../sourcemap/safe_read.h"
#include "../../sourcemap/script_text.h"
#include "../../sourcemap/sourcemap.h"
#include "../../sourcemap/store.h"
#include "../../sourcemap/vlq.h"
#include "../../v8/strings.h"
#include "fake_heap.h"

static const char *parse_err(const char *json)
{
	struct sourcemap m;
	const char *why = NULL;
	bool ok = sourcemap_parse(&m, json, strlen(json), &why);
	if (ok) {
		sourcemap_free(&m);
		return NULL;
	}
	return why ? why : "?";
}

static int32_t vlq1(const char *s)
{
	const char *p = s;
	int32_t v = 12345;
	cr_assert(vlq_decode(&p, s + strlen(s), &v), "decodes %s", s);
	cr_assert_eq(p, s + strlen(s));
	return v;
}

Test(vlq, values)
{
	cr_assert_eq(vlq1("A"), 0);
	cr_assert_eq(vlq1("C"), 1);
	cr_assert_eq(vlq1("D"), -1);
	cr_assert_eq(vlq1("gB"), 16);
	cr_assert_eq(vlq1("+/////D"), INT32_MAX);   /* 2^31 - 1 */
	cr_assert_eq(vlq1("hgggggE"), INT32_MIN);   /* -2^31 */
}

Test(vlq, rejects)
{
	const char *bad[] = {"", "g", "!", "ggggggggA", "ggggggE" /* 2^31 */, "+/////H"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *p = bad[i];
		int32_t v;
		cr_assert(!vlq_decode(&p, bad[i] + strlen(bad[i]), &v), "rejects '%s'", bad[i]);
	}
}

Test(sourcemap, plain_map_and_lookup)
{
	/* line 0: col 0 → a.ts 0:0; col 10 → b.ts 4:2 name "fn"; line 2: col 4 → b.ts 5:4; a 1-field
	 * segment at line 2 col 8 */
	const char *json = "{\"version\":3,\"sourceRoot\":\"src/\",\"sources\":[\"a.ts\",\"b.ts\"],"
			   "\"names\":[\"fn\"],\"mappings\":\"AAAA,UCIEA;;IACE,I\",\"file\":\"x.js\"}";
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	cr_assert_eq(m.n, 4);
	cr_assert_str_eq(sm_string(&m.sources, 0), "src/a.ts");
	cr_assert_str_eq(sm_string(&m.sources, 1), "src/b.ts");
	const struct sm_entry *e = sourcemap_find(&m, 0, 12);
	cr_assert(e);
	cr_assert_eq(e->src, 1);
	cr_assert_eq(e->orig_line, 4);
	cr_assert_eq(e->orig_col, 2);
	cr_assert_str_eq(sm_string(&m.names, e->name), "fn");
	e = sourcemap_find(&m, 1, 0); /* no entry on line 1: the last one before it (Node) */
	cr_assert_eq(e->gen_line, 0);
	cr_assert_eq(e->gen_col, 10);
	e = sourcemap_find(&m, 2, 5);
	cr_assert_eq(e->src, 1);
	cr_assert_eq(e->orig_line, 5);
	cr_assert_eq(e->orig_col, 4);
	cr_assert_eq(e->name, SM_NONE);
	e = sourcemap_find(&m, 2, 9);
	cr_assert_eq(e->src, SM_NONE);
	sourcemap_free(&m);
}

Test(sourcemap, source_root_after_sources_and_its_bound)
{
	const char *json = "{\"version\":3,\"sources\":[\"a.ts\",null],\"names\":[],\"mappings\":\"AAAA\",\"sourceRoot\":\"/r/\"}";
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	cr_assert_str_eq(sm_string(&m.sources, 0), "/r/a.ts");
	cr_assert_str_eq(sm_string(&m.sources, 1), "");
	sourcemap_free(&m);
	/* a 1 MB sourceRoot on 100000 sources would be 100 GB: refused */
	struct strbuf b;
	sb_init(&b);
	sb_add(&b, "{\"version\":3,\"sourceRoot\":\"");
	for (int i = 0; i < (1 << 20); i++)
		sb_addc(&b, 'r');
	sb_add(&b, "\",\"sources\":[\"a\"");
	for (int i = 0; i < 100000; i++)
		sb_add(&b, ",\"a\"");
	sb_add(&b, "],\"mappings\":\"\"}");
	cr_assert_str_eq(parse_err(b.s), "sources too large with their sourceRoot");
	sb_free(&b);
}

Test(sourcemap, before_first_entry)
{
	const char *json = "{\"version\":3,\"sources\":[\"a\"],\"names\":[],\"mappings\":\"EAAA\"}";
	struct sourcemap m;
	const char *why;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why));
	cr_assert_null(sourcemap_find(&m, 0, 1));
	cr_assert_not_null(sourcemap_find(&m, 0, 2));
	sourcemap_free(&m);
}

Test(sourcemap, unsorted_columns_sorted_stably)
{
	const char *json = "{\"version\":3,\"sources\":[\"a\"],\"names\":[],\"mappings\":\"UAAA,LAAC,AAAC\"}";
	struct sourcemap m;
	const char *why;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	/* columns 10, 5, 5: sorted 5 (orig col 1), 5 (orig col 2), 10 */
	cr_assert_eq(m.e[0].gen_col, 5);
	cr_assert_eq(m.e[0].orig_col, 1);
	cr_assert_eq(m.e[1].orig_col, 2);
	cr_assert_eq(m.e[2].gen_col, 10);
	cr_assert_eq(sourcemap_find(&m, 0, 6)->orig_col, 2); /* the last of equal positions */
	sourcemap_free(&m);
}

Test(sourcemap, index_map_sections)
{
	const char *json =
	    "{\"version\":3,\"sections\":["
	    "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"a\"],\"names\":[],\"mappings\":\"AAAA\"}},"
	    "{\"offset\":{\"line\":3,\"column\":7},\"map\":{\"version\":3,\"sources\":[\"b\"],\"names\":[\"n\"],\"mappings\":\"AACAA;EAAC\"}}]}";
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	cr_assert_eq(m.n, 3);
	const struct sm_entry *e = sourcemap_find(&m, 3, 7);
	cr_assert_eq(e->gen_line, 3);
	cr_assert_eq(e->gen_col, 7); /* the offset's column applies to the section's first line */
	cr_assert_str_eq(sm_string(&m.sources, e->src), "b");
	cr_assert_eq(e->orig_line, 1);
	cr_assert_str_eq(sm_string(&m.names, e->name), "n");
	e = sourcemap_find(&m, 4, 2);
	cr_assert_eq(e->gen_col, 2);
	cr_assert_eq(e->orig_col, 1);
	sourcemap_free(&m);
}

Test(sourcemap, malformed)
{
	const char *cases[] = {
	    "",
	    "[]",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"A!AA\"}",            /* bad VLQ */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA\"}",              /* 2 fields */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAAAA\"}",          /* 6 fields */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"ACAA\"}",            /* source 1 of 1 */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"ADAA\"}",            /* source -1 */
	    "{\"version\":3,\"sources\":[\"a\"],\"names\":[],\"mappings\":\"AAAAA\"}", /* name 0 of 0 */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"D\"}",               /* column -1 */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"+/////D,+/////D\"}", /* column > 2^31 */
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA+/////DA;AA+/////DA\"}",
	    "{\"version\":2,\"sources\":[\"a\"],\"mappings\":\"AAAA\"}",
	    "{\"sources\":[\"a\"],\"mappings\":\"AAAA\"}",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA\"} x",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA\",}",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA\"",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA\\x\"}",
	    "{\"version\":99999999999999999999999,\"sources\":[],\"mappings\":\"\"}",
	    "{\"version\":3.5,\"sources\":[],\"mappings\":\"\"}",
	    "{\"version\":3,\"sections\":[{\"offset\":{\"line\":-1,\"column\":0},\"map\":{\"version\":3,\"sources\":[],\"mappings\":\"\"}}]}",
	    "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"url\":\"x.map\"}]}",
	    "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0}}]}",
	    "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA\",\"sections\":[]}",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		cr_assert_not_null(parse_err(cases[i]), "case %zu rejected: %s", i, cases[i]);
}

Test(sourcemap, deep_index_maps_and_json_nesting)
{
	struct strbuf b;
	sb_init(&b);
	int depth = SM_MAX_SECTION_DEPTH + 2;
	for (int i = 0; i < depth; i++)
		sb_add(&b, "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"map\":");
	sb_add(&b, "{\"version\":3,\"sources\":[],\"mappings\":\"\"}");
	for (int i = 0; i < depth; i++)
		sb_add(&b, "}]}");
	cr_assert_str_eq(parse_err(b.s), "index maps nested too deeply");
	/* 100000 nested arrays in an ignored member: refused by the depth limit, no recursion */
	sb_reset(&b);
	sb_add(&b, "{\"version\":3,\"x\":");
	for (int i = 0; i < 100000; i++)
		sb_addc(&b, '[');
	for (int i = 0; i < 100000; i++)
		sb_addc(&b, ']');
	sb_add(&b, ",\"sources\":[],\"mappings\":\"\"}");
	cr_assert_str_eq(parse_err(b.s), "JSON nested too deeply");
	sb_free(&b);
}

Test(sourcemap, skips_large_ignored_members)
{
	const char *json = "{\"sourcesContent\":[\"a\\\"b\\\\\",null,{\"k\":[1,2.5e3,true,false,null]}],"
			   "\"version\":3,\"sources\":[null,\"\\u00e9\\ud83d\\ude00\"],\"names\":[],\"mappings\":\";;AACA\"}";
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	cr_assert_str_eq(sm_string(&m.sources, 0), "");
	cr_assert_str_eq(sm_string(&m.sources, 1), "\xc3\xa9\xf0\x9f\x98\x80");
	cr_assert_eq(m.e[0].gen_line, 2);
	sourcemap_free(&m);
}

/* 100 MB of mappings: decoded to the entry limit and refused, in bounded time and memory */
Test(sourcemap, huge_mappings_refused, .timeout = 60)
{
	size_t n = 100u << 20;
	char *buf = malloc(n + 100);
	cr_assert(buf);
	size_t len = (size_t)sprintf(buf, "{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"");
	while (len + 5 < n) {
		memcpy(buf + len, "AAAA,", 5);
		len += 5;
	}
	len += (size_t)sprintf(buf + len, "AAAA\"}");
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(!sourcemap_parse(&m, buf, len, &why));
	cr_assert_str_eq(why, "too many mappings");
	free(buf);
}

Test(locate, finds_last_comment)
{
	const char *src = "var s = '//# sourceMappingURL=fake.map';\n"
			  "f();\n//# sourceMappingURL=app.js.map\n";
	const char *url;
	size_t n;
	cr_assert(sm_find_comment(src, strlen(src), &url, &n));
	cr_assert_eq(n, strlen("app.js.map"));
	cr_assert(strncmp(url, "app.js.map", n) == 0);
	const char *old = "x()\n//@ sourceMappingURL=old.map";
	cr_assert(sm_find_comment(old, strlen(old), &url, &n));
	cr_assert(strncmp(url, "old.map", n) == 0);
	const char *block = "x()\n/*# sourceMappingURL=b.map */";
	cr_assert(sm_find_comment(block, strlen(block), &url, &n));
	cr_assert(strncmp(url, "b.map", n) == 0 && n == 5);
	const char *tight = "x()\n/*# sourceMappingURL=t.map*/\n";
	cr_assert(sm_find_comment(tight, strlen(tight), &url, &n));
	cr_assert(strncmp(url, "t.map", n) == 0 && n == 5);
	/* minified code that writes the comment (terser's): the text is inside a string, code follows */
	const char *in_code = "//# sourceMappingURL=real.map\nf();x=\"//# sourceMappingURL=\"+o.url}if(a)b();return c\n";
	cr_assert(sm_find_comment(in_code, strlen(in_code), &url, &n));
	cr_assert(strncmp(url, "real.map", n) == 0 && n == 8, "got '%.*s'", (int)n, url);
	const char *none[] = {"", "sourceMappingURL=x", "// sourceMappingURL=x", "//#sourceMappingURL=x",
			      "//# sourceMappingURL=", "//# sourceMappingURL= x",
			      "x=\"//# sourceMappingURL=\"+u;f()", "s='//# sourceMappingURL=a.map'",
			      "//# sourceMappingURL=a.map b", "/*# sourceMappingURL=a.map x */"};
	for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++)
		cr_assert(!sm_find_comment(none[i], strlen(none[i]), &url, &n), "no comment in '%s'", none[i]);
}

static const char *resolve(const char *script, const char *url)
{
	static struct strbuf path;
	const char *why = NULL;
	enum sm_where w = sm_resolve_map_url(script, url, strlen(url), &path, &why);
	if (w == SM_AT_INLINE)
		return "(inline)";
	if (w == SM_AT_NONE)
		return NULL;
	return path.s;
}

/* An inline map on a last line longer than the first tail read (a bundle's): the tail doubles
 * until the line's start is in it; the text is then the source's last units, as one conversion of
 * them gives it (one-byte and two-byte sources, a pair and a non-Latin-1 character inside the
 * line). */
Test(locate, a_long_last_line_is_read_whole_once)
{
	struct fake_heap fh;
	fh_init(&fh);
	enum { CODE = 80000, URL = 200000 };
	const char *key = "//# sourceMappingURL=data:,";
	size_t klen = strlen(key), n = CODE + 1 + klen + URL + 1;
	uint16_t *u = malloc(n * sizeof(*u));
	char *one = malloc(n + 1);
	for (size_t i = 0; i < CODE; i++)
		u[i] = i % 61 == 60 ? '\n' : (uint16_t)('a' + i % 26);
	u[CODE] = '\n';
	for (size_t i = 0; i < klen; i++)
		u[CODE + 1 + i] = (uint8_t)key[i];
	for (size_t i = 0; i < URL; i++)
		u[CODE + 1 + klen + i] = (uint16_t)('A' + i % 26);
	u[n - 1] = '\n';
	for (size_t i = 0; i < n; i++)
		one[i] = (char)u[i];
	one[n] = 0;
	struct strbuf tail, want;
	sb_init(&tail);
	sb_init(&want);
	for (int two = 0; two < 2; two++) {
		if (two) { /* a pair, and a character beyond Latin-1, inside the long line */
			u[n - 70000] = 0xd83d, u[n - 69999] = 0xde00, u[n - 5] = 0x65e5;
		}
		uint64_t src = two ? fh_str2(&fh, u, (int)n) : fh_str1(&fh, one);
		cr_assert(sm_source_tail(&fh.h, src, SM_MAX_TAIL_UNITS, &tail));
		/* 64 Ki, 128 Ki, then 256 Ki units: the first with the line's start */
		size_t take = 256 << 10;
		sb_reset(&want);
		cr_assert(v8_string_utf8_range(&fh.h, src, n - take, n, &want));
		cr_assert_eq(tail.len, want.len, "%s: %zu bytes, want %zu", two ? "two-byte" : "one-byte",
			     tail.len, want.len);
		cr_assert(!memcmp(tail.s, want.s, want.len));
		const char *url;
		size_t ulen;
		cr_assert(sm_find_comment(tail.s, tail.len, &url, &ulen));
		cr_assert_eq(ulen, strlen("data:,") + URL + (two ? 4 : 0), "the URL is the whole line's");
	}
	/* an empty source: an empty tail (its buffer never allocated), no comment in it */
	struct strbuf empty;
	sb_init(&empty);
	cr_assert(sm_source_tail(&fh.h, fh_str1(&fh, ""), SM_MAX_TAIL_UNITS, &empty));
	cr_assert_eq(empty.len, 0);
	const char *url;
	size_t ulen;
	cr_assert_not(sm_find_comment(empty.s, empty.len, &url, &ulen));
	sb_free(&empty);
	sb_free(&tail);
	sb_free(&want);
	free(u);
	free(one);
	fh_free(&fh);
}

Test(locate, resolves_like_node)
{
	cr_assert_str_eq(resolve("/srv/dist/app.js", "app.js.map"), "/srv/dist/app.js.map");
	cr_assert_str_eq(resolve("/srv/dist/app.js", "../maps/./app.js.map?v=1#x"), "/srv/maps/app.js.map");
	cr_assert_str_eq(resolve("/srv/dist/app.js", "../../../../x.map"), "/x.map");
	cr_assert_str_eq(resolve("/srv/dist/app.js", "/abs/x.map"), "/abs/x.map");
	cr_assert_str_eq(resolve("file:///srv/dist/app.mjs", "a%20b.map"), "/srv/dist/a b.map");
	cr_assert_str_eq(resolve("/srv/dist/app.js", "file:///other/x.map"), "/other/x.map");
	cr_assert_str_eq(resolve("/srv/app.js", "data:application/json;base64,e30="), "(inline)");
	cr_assert_null(resolve("/srv/app.js", "https://cdn/x.map"));
	cr_assert_str_eq(resolve("/srv/app.js", "//host"), "/"); /* found by the fuzzer */
	cr_assert_str_eq(resolve("/srv/app.js", "file://"), "/");
	cr_assert_null(resolve("node:internal/x", "x.map"));
	cr_assert_null(resolve("", "x.map"));
	struct strbuf b;
	sb_init(&b);
	sm_resolve_source("/srv/dist/app.js.map", "../src/a.ts", &b);
	cr_assert_str_eq(b.s, "/srv/src/a.ts");
	sm_resolve_source("/srv/dist/app.js.map", "/abs/../b.ts", &b);
	cr_assert_str_eq(b.s, "/b.ts");
	sm_resolve_source("/srv/dist/app.js.map", "webpack://app/./c.ts", &b);
	cr_assert_str_eq(b.s, "webpack://app/./c.ts");
	sm_resolve_source(NULL, "d.ts", &b);
	cr_assert_str_eq(b.s, "d.ts");
	sb_free(&b);
}

static const char *data(const char *url, const char **why)
{
	static struct strbuf out;
	sb_reset(&out);
	*why = NULL;
	if (!data_url_decode(url, strlen(url), 1 << 20, &out, why))
		return NULL;
	return out.s ? out.s : "";
}

Test(data_url, decodes)
{
	const char *why;
	cr_assert_str_eq(data("data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==", &why), "{\"version\":3}");
	cr_assert_str_eq(data("data:application/json;charset=utf-8;base64,eyJ2ZXJzaW9uIjozfQ", &why), "{\"version\":3}");
	cr_assert_str_eq(data("data:application/json,{}", &why), "{}");
	cr_assert_null(data("data:text/plain;base64,e30=", &why));
	cr_assert_null(data("data:application/json;base64", &why));
	cr_assert_not_null(why);
}

/* the file reader: regular files only, no symlink at the end, no blocking, a size bound */
Test(safe_read, refuses_what_it_must, .timeout = 30)
{
	char dir[] = "/tmp/v8walk-smread-XXXXXX";
	cr_assert(mkdtemp(dir));
	char path[256], link[256], fifo[256], big[256], ok[256];
	snprintf(ok, sizeof(ok), "%s/ok.map", dir);
	snprintf(link, sizeof(link), "%s/link.map", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo.map", dir);
	snprintf(big, sizeof(big), "%s/big.map", dir);
	FILE *f = fopen(ok, "w");
	cr_assert(f);
	fputs("{}", f);
	fclose(f);
	cr_assert_eq(symlink(ok, link), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	int fd = open(big, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 100 << 20), 0); /* 100 MB (sparse) */
	close(fd);
	struct strbuf b;
	sb_init(&b);
	const char *why = NULL;
	cr_assert_eq(sm_read_file("", ok, 1 << 20, &b, &why), SR_OK);
	cr_assert_str_eq(b.s, "{}");
	cr_assert_eq(sm_read_file("", link, 1 << 20, &b, &why), SR_UNREADABLE);
	cr_assert_eq(sm_read_file("", fifo, 1 << 20, &b, &why), SR_UNREADABLE);
	cr_assert_eq(sm_read_file("", big, 64 << 20, &b, &why), SR_TOO_LARGE);
	snprintf(path, sizeof(path), "%s/none.map", dir);
	cr_assert_eq(sm_read_file("", path, 1 << 20, &b, &why), SR_MISSING);
	/* inside a root, ".." and absolute symlinks stay inside it */
	snprintf(path, sizeof(path), "/../../%s", strrchr(ok, '/') + 1);
	cr_assert_eq(sm_read_file(dir, path, 1 << 20, &b, &why), SR_OK);
	char escape[256];
	snprintf(escape, sizeof(escape), "%s/escape", dir);
	cr_assert_eq(symlink("/etc", escape), 0);
	cr_assert_eq(sm_read_file(dir, "/escape/passwd", 1 << 20, &b, &why), SR_MISSING);
	sb_free(&b);
	unlink(ok), unlink(link), unlink(fifo), unlink(big), unlink(escape);
	rmdir(dir);
}

/* A store over a script cache and an interned string table, as the walker sets them up. */
struct store_fx {
	struct intern strings;
	struct script_cache scripts;
	struct sm_store st;
};

static void store_fx_init(struct store_fx *x, struct memsrc *mem, const struct v8_layout *L)
{
	intern_init(&x->strings);
	intern_str(&x->strings, ""); /* id 0: "none", as in the walker */
	script_cache_init(&x->scripts, &x->strings);
	sm_store_init(&x->st, &x->strings, &x->scripts, mem, L, "");
}

static void store_fx_free(struct store_fx *x)
{
	sm_store_free(&x->st);
	script_cache_free(&x->scripts);
	intern_free(&x->strings);
}

/* Frames moved by a map as Node moves them (prepare_stack_trace.js): the original position of the
 * entry at or before the generated one, the name of the entry at the function's definition, else
 * the one at the caller's call site when the caller is in the same script; `new ` kept; no entry
 * or a 1-field one leaves the frame as it is. */
Test(store, frames_as_node_maps_them)
{
	struct store_fx x;
	store_fx_init(&x, NULL, NULL);
	const char *json = "{\"version\":3,\"sources\":[\"../src/a.ts\"],\"names\":[\"realName\",\"callerName\"],"
			   "\"mappings\":\"AAAAA,UAGI,U,UAIJC\"}";
	struct sourcemap m;
	const char *why = NULL;
	cr_assert(sourcemap_parse(&m, json, strlen(json), &why), "%s", why);
	cr_assert(sm_store_put(&x.st, 0x100, &m, "/d/app.js.map"));
	uint32_t gen = intern_str(&x.strings, "/d/app.js");
	struct frame f[4] = {
	    {.kind = FK_JS, .script = 0x100, .file = gen, .line = 1, .col = 13, .def_line = 1, .def_col = 1},
	    {.kind = FK_JS, .script = 0x100, .file = gen, .line = 1, .col = 31, .def_line = 1, .def_col = 21},
	    {.kind = FK_JS, .script = 0x100, .file = gen, .line = 1, .col = 35, .def_line = 1, .def_col = 22},
	    {.kind = FK_JS, .script = 0x100, .file = gen, .line = 1, .col = 21, .def_line = 1, .def_col = 1},
	};
	f[0].name = intern_str(&x.strings, "x");
	f[1].name = intern_str(&x.strings, "new Foo");
	f[2].name = intern_str(&x.strings, "Foo.bar");
	f[3].name = intern_str(&x.strings, "y");
	sm_apply(&x.st, f, 4);
	cr_assert_str_eq(intern_get(&x.strings, f[0].file), "/src/a.ts");
	cr_assert_eq(f[0].line, 4);
	cr_assert_eq(f[0].col, 5);
	cr_assert_str_eq(intern_get(&x.strings, f[0].name), "realName");
	cr_assert_eq(f[0].gen_file, gen);
	cr_assert_eq(f[0].gen_line, 1);
	cr_assert_eq(f[0].gen_col, 13);
	cr_assert_eq(f[0].def_line, 1);
	cr_assert_eq(f[1].line, 8);
	cr_assert_eq(f[1].col, 1);
	cr_assert_str_eq(intern_get(&x.strings, f[1].name), "new callerName"); /* the caller's */
	cr_assert_str_eq(intern_get(&x.strings, f[2].name), "Foo.bar"); /* no name at all */
	cr_assert_eq(f[2].line, 8);
	cr_assert_eq(f[3].gen_file, 0); /* a 1-field segment: as it was */
	cr_assert_eq(f[3].file, gen);
	cr_assert_eq(f[3].col, 21);
	cr_assert_str_eq(intern_get(&x.strings, f[3].name), "y");
	cr_assert_eq(x.st.st.mapped_frames, 3);
	cr_assert_eq(x.st.st.unmapped_frames, 1);
	sm_apply(&x.st, f, 4); /* applying twice changes nothing */
	cr_assert_eq(f[0].line, 4);
	cr_assert_eq(f[0].gen_col, 13);
	store_fx_free(&x);
}

/* The source string a walk saw may have moved by the time the map is looked for (the target ran:
 * a scavenge copied it and the old copy no longer reads as a string): the Script is read again
 * for its source now. A source that cannot be read at all is counted and stated, and looked for
 * again on later lookups. */
Test(store, a_source_that_moved_after_the_walk)
{
	struct fake_heap fh;
	fh_init(&fh);
	struct store_fx x;
	store_fx_init(&x, &fh.base, &fh.L);
	const char *text = "f();\n//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJ"
			   "zb3VyY2VzIjpbImEudHMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEifQ==\n";
	uint64_t script[2];
	for (int i = 0; i < 2; i++) {
		script[i] = fh_obj(&fh, FT_SCRIPT, 128);
		fh_set(&fh, script[i], 8, fh_str1(&fh, text));
		fh_set(&fh, script[i], 16, fh_str1(&fh, i ? "/srv/b.js" : "/srv/a.js"));
		fh_set(&fh, script[i], 56, fh_smi(0));
		cr_assert_not_null(script_get(&x.scripts, &fh.h, script[i])); /* what the walk saw */
	}
	/* a.js: its source moved; b.js: its source is now unreadable */
	uint64_t a_old = 0, b_old = 0;
	memcpy(&a_old, fh_ptr(&fh, script[0] - 1 + 8), 8);
	memcpy(&b_old, fh_ptr(&fh, script[1] - 1 + 8), 8);
	fh_set(&fh, script[0], 8, fh_str1(&fh, text));
	fh_set(&fh, a_old, 0, fh_smi(7)); /* the old copy's map word: no map any more */
	fh_set(&fh, b_old, 0, fh_smi(7));
	struct frame f[2] = {
	    {.kind = FK_JS, .script = script[0], .file = intern_str(&x.strings, "/srv/a.js"), .line = 1, .col = 1},
	    {.kind = FK_JS, .script = script[1], .file = intern_str(&x.strings, "/srv/b.js"), .line = 1, .col = 1},
	};
	sm_apply(&x.st, f, 2);
	cr_assert_str_eq(intern_get(&x.strings, f[0].file), "/srv/a.ts", "a.js mapped from its moved source");
	cr_assert_str_eq(intern_get(&x.strings, f[1].file), "/srv/b.js", "b.js left at its position");
	cr_assert_eq(x.st.st.loaded, 1);
	cr_assert_eq(x.st.st.scripts, 1);
	cr_assert_eq(x.st.st.unread, 1);
	char out[1024] = "";
	FILE *mf = fmemopen(out, sizeof(out) - 1, "w");
	sm_store_summary(&x.st, mf);
	fclose(mf);
	cr_assert(strstr(out, "the source of 1 scripts could not be read"), "%s", out);
	/* b.js readable again (the walk read its Script anew): found on the next lookup */
	fh_set(&fh, b_old, 0, fh_map(&fh, FT_SEQ_ONE));
	sm_apply(&x.st, f, 2);
	cr_assert_str_eq(intern_get(&x.strings, f[1].file), "/srv/a.ts", "b.js mapped once readable");
	cr_assert_eq(x.st.st.loaded, 2);
	cr_assert_eq(x.st.st.unread, 0);
	store_fx_free(&x);
	fh_free(&fh);
}
