/* test_text.c — counted byte strings end to end: the interner keeps names holding NUL whole and
 * apart, and the escapers turn target-controlled bytes into safe text and valid JSON. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/intern.h"
#include "../../util/text_escape.h"

Test(text, interner_keeps_names_with_nul_whole_and_distinct)
{
	struct intern t;
	intern_init(&t);
	static const char a[] = "a\0bcdefgh", b[] = "a\0bcdefgX";
	uint32_t short_id = intern_str(&t, "a");
	uint32_t ia = intern_n(&t, a, sizeof(a) - 1), ib = intern_n(&t, b, sizeof(b) - 1);
	cr_assert_neq(ia, ib, "names that differ after a NUL are different names");
	cr_assert_neq(ia, short_id, "\"a\\0bcdefgh\" is not \"a\"");
	cr_assert_eq(intern_len(&t, ia), sizeof(a) - 1);
	cr_assert(memcmp(intern_get(&t, ia), a, sizeof(a) - 1) == 0, "every byte kept");
	cr_assert_eq(intern_n(&t, a, sizeof(a) - 1), ia, "the same bytes get the same id");
	for (int i = 0; i < 2000; i++) { /* through several rehashes */
		char k[16];
		int n = snprintf(k, sizeof(k), "k%d", i);
		k[1] = 0; /* every key holds a NUL */
		intern_n(&t, k, (size_t)n);
	}
	cr_assert_eq(intern_n(&t, a, sizeof(a) - 1), ia);
	cr_assert_eq(intern_n(&t, b, sizeof(b) - 1), ib);
	intern_free(&t);
}

static const char *escaped(const char *s, size_t n, bool json)
{
	static struct strbuf b;
	sb_reset(&b);
	if (json)
		sb_add_json(&b, s, n);
	else
		sb_add_escaped(&b, s, n);
	return b.s ? b.s : "";
}

Test(text, terminal_escapes_controls_c1_and_invalid_utf8)
{
	static const char title[] = "\x1b]0;PWN\x07\x1b[2J";
	cr_assert_str_eq(escaped(title, sizeof(title) - 1, false), "\\x1b]0;PWN\\x07\\x1b[2J");
	cr_assert_str_eq(escaped("a\0b", 3, false), "a\\x00b");
	cr_assert_str_eq(escaped("\xc2\x9b" "x\x7f", 4, false), "\\xc2\\x9bx\\x7f", "C1 CSI and DEL");
	cr_assert_str_eq(escaped("\xff\xc3", 2, false), "\\xff\\xc3", "invalid and truncated UTF-8");
	cr_assert_str_eq(escaped("\xed\xa0\x80", 3, false), "\\xed\\xa0\\x80", "a UTF-8 surrogate");
	cr_assert_str_eq(escaped("\xc0\xaf", 2, false), "\\xc0\\xaf", "an overlong form");
	cr_assert_str_eq(escaped("площадь ✓ 𝄞", strlen("площадь ✓ 𝄞"), false), "площадь ✓ 𝄞");
}

Test(text, json_escapes_as_json_requires)
{
	cr_assert_str_eq(escaped("a\0\"\\\n\x1b", 6, true), "a\\u0000\\\"\\\\\\n\\u001b");
	cr_assert_str_eq(escaped("\xc2\x9b\xff", 3, true), "\\u009b\\ufffd");
	cr_assert_str_eq(escaped("✓", strlen("✓"), true), "✓");
}

Test(text, fprintf_text_escapes_all_but_the_final_newline)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	fprintf_text(f, "v8walk: sampling process %d (%s)\n", 7, "\x1b]0;PWN\x07\x1b[2J\nfake line");
	fclose(f);
	cr_assert_str_eq(buf, "v8walk: sampling process 7 (\\x1b]0;PWN\\x07\\x1b[2J\\x0afake line)\n");
	free(buf);
}

Test(text, the_name_table_stays_within_its_budget)
{
	struct intern t;
	intern_init(&t);
	intern_set_budget(&t, 64 * 1024, INTERN_OVERFLOW_NAME);
	uint32_t first = intern_str(&t, "kept");
	char name[64];
	uint32_t last = 0;
	for (int i = 0; i < 100000; i++) { /* a target making ever new function names */
		snprintf(name, sizeof(name), "generated_function_name_%d", i);
		last = intern_str(&t, name);
	}
	cr_assert_leq(t.bytes, 64 * 1024, "%zu bytes held", t.bytes);
	cr_assert_gt(t.refused, 90000);
	cr_assert_str_eq(intern_get(&t, last), INTERN_OVERFLOW_NAME);
	cr_assert_eq(intern_str(&t, "kept"), first, "names already in keep their id");
	cr_assert_str_eq(intern_get(&t, 0), "", "id 0 is still the empty name");
	intern_free(&t);
}
