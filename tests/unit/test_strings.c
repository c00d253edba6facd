/* test_strings.c — V8 string decoding over a synthetic heap: every representation, Latin-1 and
 * UTF-16 conversion, bounds, cycles, and line tables built from sources. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/summary.h"
#include "../../v8/scripts.h"
#include "../../v8/strings.h"
#include "fake_heap.h"

static struct fake_heap fh;
static struct strbuf out;

static void setup(void)
{
	fh_init(&fh);
	sb_init(&out);
}

static void teardown(void)
{
	sb_free(&out);
	fh_free(&fh);
}

static const char *decode(uint64_t s)
{
	sb_reset(&out);
	if (!v8_string_utf8(&fh.h, s, V8_NAME_MAX_UNITS, &out))
		return NULL;
	return out.s ? out.s : "";
}

TestSuite(strings, .init = setup, .fini = teardown);

Test(strings, sequential_one_byte_is_latin1)
{
	cr_assert_str_eq(decode(fh_str1(&fh, "outer")), "outer");
	/* é in Latin-1 is one byte 0xe9; in UTF-8 it is c3 a9 */
	cr_assert_str_eq(decode(fh_str1(&fh, "caf\xe9")), "caf\xc3\xa9");
}

Test(strings, sequential_two_byte_with_surrogates)
{
	/* "日本" + U+1F600 (a surrogate pair) */
	const uint16_t u[] = {0x65e5, 0x672c, 0xd83d, 0xde00};
	cr_assert_str_eq(decode(fh_str2(&fh, u, 4)), "\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80");
	/* a lone high surrogate becomes U+FFFD */
	const uint16_t lone[] = {'a', 0xd800, 'b'};
	cr_assert_str_eq(decode(fh_str2(&fh, lone, 3)), "a\xef\xbf\xbd" "b");
}

Test(strings, cons_thin_sliced)
{
	uint64_t a = fh_str1(&fh, "Module.");
	uint64_t b = fh_str1(&fh, "_compile");
	uint64_t c = fh_cons(&fh, a, b);
	cr_assert_str_eq(decode(c), "Module._compile");
	cr_assert_str_eq(decode(fh_thin(&fh, c)), "Module._compile");
	cr_assert_str_eq(decode(fh_sliced(&fh, fh_str1(&fh, "xxhelloyy"), 2, 5)), "hello");
	/* a slice that runs past its parent is refused, not read out of bounds */
	cr_assert_null(decode(fh_sliced(&fh, fh_str1(&fh, "short"), 3, 10)));
}

Test(strings, deep_left_leaning_cons)
{
	uint64_t s = fh_str1(&fh, "a");
	for (int i = 0; i < 300; i++)
		s = fh_cons(&fh, s, fh_str1(&fh, "b"));
	const char *d = decode(s);
	cr_assert_not_null(d);
	cr_assert_eq(strlen(d), 301);
	cr_assert_eq(d[0], 'a');
	cr_assert_eq(d[300], 'b');
}

Test(strings, cyclic_cons_is_refused_not_hung)
{
	uint64_t a = fh_str1(&fh, "ab");
	uint64_t c = fh_cons(&fh, a, a);
	/* corrupt it into a cycle that never shrinks: first points back at the cons itself */
	fh_set(&fh, c, 16, c);
	cr_assert_null(decode(c));
	/* a cycle through `second` shrinks by first's length each turn: bounded, then decoded */
	uint64_t d = fh_cons(&fh, a, a);
	fh_set(&fh, d, 24, d);
	fh_set32(&fh, d, 12, 10);
	cr_assert_str_eq(decode(d), "ababababab");
}

Test(strings, external_cached_and_uncached)
{
	cr_assert_str_eq(decode(fh_external(&fh, "node:internal/timers", 20, false, false)),
			 "node:internal/timers");
	const uint16_t u[] = {'x', 0x00e9};
	cr_assert_str_eq(decode(fh_external(&fh, u, 2, true, false)), "x\xc3\xa9");
	cr_assert_null(decode(fh_external(&fh, "abc", 3, false, true)));
}

Test(strings, not_a_string)
{
	cr_assert_null(decode(fh_obj(&fh, FT_SCRIPT, 64)));
	cr_assert_null(decode(0x12345678ULL << 32)); /* a Smi */
	cr_assert_null(decode(0x7777777771ULL));     /* unmapped */
}

Test(strings, name_length_is_bounded)
{
	static char big[5000];
	memset(big, 'q', sizeof(big) - 1);
	const char *d = decode(fh_str1(&fh, big));
	cr_assert_eq(strlen(d), V8_NAME_MAX_UNITS);
}

static uint64_t script_with_source(uint64_t source)
{
	uint64_t s = fh_obj(&fh, FT_SCRIPT, 128);
	fh_set(&fh, s, 8, source);
	fh_set(&fh, s, 16, fh_str1(&fh, "/srv/app.js"));
	fh_set(&fh, s, 56, fh_smi(0)); /* no line_ends computed yet */
	return s;
}

/* A script cache over its own name table (freed by scripts_free). */
static void scripts_init(struct script_cache *sc, struct intern *names)
{
	intern_init(names);
	script_cache_init(sc, names);
}

static void scripts_free(struct script_cache *sc, struct intern *names)
{
	script_cache_free(sc);
	intern_free(names);
}

Test(strings, line_table_from_source_handles_crlf_cr_and_cons)
{
	struct intern names;
	struct script_cache sc;
	scripts_init(&sc, &names);
	/* lines: "ab\r\n" "c\r" "d\n" "efg" (CRLF, lone CR, LF, unterminated last line), split in a cons */
	uint64_t src = fh_cons(&fh, fh_str1(&fh, "ab\r\nc"), fh_str1(&fh, "\rd\nefg"));
	struct v8_script *s = script_get(&sc, &fh.h, script_with_source(src));
	cr_assert_not_null(s);
	cr_assert_str_eq(intern_get(&names, s->name_id), "/srv/app.js");
	int32_t line, col;
	cr_assert(script_position(&sc, &fh.h, s, 1, &line, &col));
	cr_assert_eq(line, 1);
	cr_assert_eq(col, 2);
	cr_assert(script_position(&sc, &fh.h, s, 4, &line, &col)); /* 'c' */
	cr_assert_eq(line, 2);
	cr_assert_eq(col, 1);
	cr_assert(script_position(&sc, &fh.h, s, 6, &line, &col)); /* 'd' after a lone CR */
	cr_assert_eq(line, 3);
	cr_assert(script_position(&sc, &fh.h, s, 10, &line, &col)); /* 'g' */
	cr_assert_eq(line, 4);
	cr_assert_eq(col, 3);
	cr_assert_not(script_position(&sc, &fh.h, s, 99, &line, &col));
	scripts_free(&sc, &names);
}

Test(strings, line_table_prefers_script_line_ends)
{
	struct intern names;
	struct script_cache sc;
	scripts_init(&sc, &names);
	uint64_t script = script_with_source(fh_str1(&fh, "this source is not scanned"));
	uint64_t le = fh_obj(&fh, FT_FIXED_ARRAY, 16 + 3 * 8);
	fh_set(&fh, le, 8, fh_smi(3));
	fh_set(&fh, le, 16, fh_smi(9));
	fh_set(&fh, le, 24, fh_smi(19));
	fh_set(&fh, le, 32, fh_smi(29));
	fh_set(&fh, script, 56, le);
	struct v8_script *s = script_get(&sc, &fh.h, script);
	int32_t line, col;
	cr_assert(script_position(&sc, &fh.h, s, 25, &line, &col));
	cr_assert_eq(line, 3);
	cr_assert_eq(col, 6);
	cr_assert(s->from_line_ends);
	scripts_free(&sc, &names);
}

/* A source that cannot be read at first (as in launch mode, the first lookups of a script just
 * loaded) is scanned again later, after a growing number of lookups, not given up for the run. */
Test(strings, failed_scan_is_tried_again_later)
{
	struct intern names;
	struct script_cache sc;
	scripts_init(&sc, &names);
	uint64_t src = fh_str1(&fh, "a\nb\nc");
	uint64_t map;
	memcpy(&map, fh_ptr(&fh, src - 1), 8);
	fh_set(&fh, src, 0, 0); /* unreadable: no map */
	struct v8_script *s = script_get(&sc, &fh.h, script_with_source(src));
	int32_t line, col;
	int fails = 0;
	for (; fails < 10; fails++)
		cr_assert_not(script_position(&sc, &fh.h, s, 4, &line, &col));
	fh_set(&fh, src, 0, map); /* readable now */
	int lookups = 0;
	while (!script_position(&sc, &fh.h, s, 4, &line, &col))
		cr_assert_lt(++lookups, 1 << SCRIPT_SCAN_BACKOFF_MAX, "tried again within the backoff");
	cr_assert_eq(line, 3);
	cr_assert_eq(col, 1);
	scripts_free(&sc, &names);
}

Test(strings, line_table_lookup_edges)
{
	const uint32_t ends[] = {4, 9, 12};
	int32_t line, col;
	cr_assert(line_table_lookup(ends, 3, 0, &line, &col) && line == 1 && col == 1);
	cr_assert(line_table_lookup(ends, 3, 4, &line, &col) && line == 1 && col == 5);
	cr_assert(line_table_lookup(ends, 3, 5, &line, &col) && line == 2 && col == 1);
	cr_assert(line_table_lookup(ends, 3, 12, &line, &col) && line == 3 && col == 3);
	cr_assert_not(line_table_lookup(ends, 3, 13, &line, &col));
	cr_assert_not(line_table_lookup(ends, 3, -1, &line, &col));
}

Test(strings, line_tables_stay_within_their_budget)
{
	struct intern names;
	struct script_cache sc;
	scripts_init(&sc, &names);
	sc.line_budget = 4 * sizeof(uint32_t); /* room for one table of four lines */
	struct v8_script *a = script_get(&sc, &fh.h, script_with_source(fh_str1(&fh, "a\nb\nc\nd")));
	struct v8_script *b = script_get(&sc, &fh.h, script_with_source(fh_str1(&fh, "x\ny\nz")));
	int32_t line, col;
	cr_assert(script_position(&sc, &fh.h, a, 6, &line, &col));
	cr_assert_eq(line, 4);
	cr_assert_eq(sc.line_bytes, 4 * sizeof(uint32_t), "the table's bytes are counted");
	cr_assert_not(script_position(&sc, &fh.h, b, 2, &line, &col), "no second table past the budget");
	cr_assert_eq(sc.budget_refusals, 1);
	cr_assert(script_position(&sc, &fh.h, a, 0, &line, &col), "tables already built still answer");
	script_cache_begin_walk(&sc); /* the next walk starts by emptying the tables */
	cr_assert_eq(sc.budget_flushes, 1);
	cr_assert_eq(sc.line_bytes, 0);
	cr_assert(script_position(&sc, &fh.h, b, 2, &line, &col));
	cr_assert_eq(line, 2);
	char *said = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&said, &len);
	print_limits(out, 7, NULL, &sc, NULL);
	fclose(out);
	cr_assert(strstr(said, "the line tables of process 7's scripts reached their budget"), "%s", said);
	free(said);
	scripts_free(&sc, &names);
}

/* Units drawn to exercise the word-at-a-time paths: mostly ASCII runs, then line terminators and
 * their near misses (0x0a0a, 0x0d00, 0x2027, 0x202a, tab, 0x0b), Latin-1, and surrogates alone
 * and in pairs. */
static uint16_t random_unit(unsigned *seed, bool two)
{
	static const uint16_t rare2[] = {'\n', '\r', 0x2028, 0x2029, 0x0a0a, 0x0d00, 0x2027, 0x202a,
					 '\t', 0x0b, 0xe9, 0x65e5, 0xd83d, 0xde00, 0xdbff, 0xdc00};
	static const uint16_t rare1[] = {'\n', '\r', '\t', 0x0b, 0xe9, 0x85, 0xa8, 0xff};
	*seed = *seed * 1103515245u + 12345u;
	unsigned r = (*seed >> 16) & 0x7fff;
	if (r % 8)
		return (uint16_t)(' ' + r % 95);
	return two ? rare2[r / 8 % 16] : rare1[r / 8 % 8];
}

/* V8's line ends, unit by unit (String::CalculateLineEnds), for comparing with the scan */
static size_t reference_ends(const uint16_t *u, size_t n, uint32_t *ends)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (u[i] == '\n' || u[i] == 0x2028 || u[i] == 0x2029 || (u[i] == '\r' && (i + 1 == n || u[i + 1] != '\n')))
			ends[k++] = (uint32_t)i;
	if (k == 0 || ends[k - 1] + 1 < n)
		ends[k++] = (uint32_t)n;
	return k;
}

Test(strings, line_ends_scanned_word_at_a_time_are_those_unit_by_unit)
{
	struct intern names;
	struct script_cache sc;
	scripts_init(&sc, &names);
	unsigned seed = 7;
	uint16_t u[300];
	char one[301];
	uint32_t want[302];
	for (int round = 0; round < 400; round++) {
		bool two = round % 2;
		size_t n = 1 + (size_t)round * 7 % 300; /* every alignment of the words */
		for (size_t i = 0; i < n; i++) {
			u[i] = random_unit(&seed, two);
			one[i] = (char)u[i];
		}
		one[n] = 0;
		if (!two)
			for (size_t i = 0; i < n; i++)
				if (!one[i])
					one[i] = 'x', u[i] = 'x';
		uint64_t src = two ? fh_str2(&fh, u, (int)n) : fh_str1(&fh, one);
		struct v8_script *s = script_get(&sc, &fh.h, script_with_source(src));
		int32_t line, col;
		cr_assert(script_position(&sc, &fh.h, s, 0, &line, &col));
		size_t k = reference_ends(u, n, want);
		cr_assert_eq(s->nends, k, "round %d (%s, %zu units): %zu ends, want %zu", round,
			     two ? "two-byte" : "one-byte", n, s->nends, k);
		for (size_t i = 0; i < k; i++)
			cr_assert_eq(s->ends[i], want[i], "round %d: end %zu at %u, want %u", round, i,
				     s->ends[i], want[i]);
		script_cache_begin_walk(&sc);
	}
	scripts_free(&sc, &names);
}

/* UTF-8 unit by unit (pairs joined, lone surrogates U+FFFD), for comparing with the conversion */
static void reference_utf8(const uint16_t *u, size_t n, struct strbuf *b)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = u[i];
		if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n && u[i + 1] >= 0xdc00 && u[i + 1] <= 0xdfff)
			cp = 0x10000 + ((cp - 0xd800) << 10) + (u[++i] - 0xdc00);
		else if (cp >= 0xd800 && cp <= 0xdfff)
			cp = 0xfffd;
		char e[4];
		sb_addn(b, e, utf8_put(cp, e));
	}
}

Test(strings, utf8_word_at_a_time_is_unit_by_unit)
{
	unsigned seed = 11;
	uint16_t u[300];
	char one[301];
	struct strbuf want;
	sb_init(&want);
	for (int round = 0; round < 400; round++) {
		bool two = round % 2;
		size_t n = 1 + (size_t)round * 7 % 300;
		for (size_t i = 0; i < n; i++) {
			u[i] = random_unit(&seed, two);
			if (!two && !u[i])
				u[i] = 'x';
			one[i] = (char)u[i];
		}
		one[n] = 0;
		uint64_t str = two ? fh_str2(&fh, u, (int)n) : fh_str1(&fh, one);
		/* a range from inside: a pair cut at its start reads as U+FFFD */
		for (size_t from = 0; from < n; from += 1 + n / 5) {
			sb_reset(&want);
			reference_utf8(u + from, n - from, &want);
			sb_reset(&out);
			cr_assert(v8_string_utf8_range(&fh.h, str, from, n, &out));
			cr_assert_eq(out.len, want.len, "round %d from %zu: %zu bytes, want %zu", round, from, out.len, want.len);
			cr_assert(!memcmp(out.s, want.s, want.len), "round %d from %zu", round, from);
		}
	}
	sb_free(&want);
}
