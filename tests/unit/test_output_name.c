/* test_output_name.c — --period file names (%n, strftime fields, %% literals, names that do not
 * fit) and write-then-rename output files (no temporary file left, a failed write leaves the old
 * file). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cli/output_name.h"

Test(output_name, fields)
{
	cr_assert(output_name_has_fields("p-%n.pb.gz"));
	cr_assert(output_name_has_fields("p-%Y%m%d.folded"));
	cr_assert_not(output_name_has_fields("p-100%%.folded"));
	cr_assert_not(output_name_has_fields("plain.folded"));
	cr_assert_not(output_name_has_fields("trailing%"));
}

Test(output_name, expand)
{
	setenv("TZ", "UTC", 1);
	tzset();
	struct output_fields f = {.seq = 42, .start = 86400 * 365}; /* 1971-01-01 00:00:00 UTC */
	char out[64];
	cr_assert(output_name_expand("prof-%Y%m%dT%H%M%S-%n.pb.gz", &f, out, sizeof(out)));
	cr_assert_str_eq(out, "prof-19710101T000000-42.pb.gz");
	cr_assert(output_name_expand("a%%n-%n", &f, out, sizeof(out)));
	cr_assert_str_eq(out, "a%n-42");
	char tiny[8];
	cr_assert_not(output_name_expand("much-too-long-%n", &f, tiny, sizeof(tiny)));
	cr_assert_not(output_name_expand("", &f, out, sizeof(out)));
}

Test(output_name, atomic_file)
{
	char dir[] = "/tmp/v8walk-atomic-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	struct atomic_file af;
	cr_assert(atomic_file_open(&af, path));
	fputs("first", af.f);
	struct stat st;
	cr_assert_neq(stat(path, &st), 0, "nothing at the name before the rename");
	cr_assert_eq(atomic_file_close(&af, true), 0);
	cr_assert(atomic_file_open(&af, path));
	fputs("second, failed", af.f);
	cr_assert_neq(atomic_file_close(&af, false), 0);
	FILE *f = fopen(path, "r");
	char buf[32] = {0};
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_str_eq(buf, "first", "a failed write leaves the previous file");
	unlink(path);
	cr_assert_eq(rmdir(dir), 0, "no temporary file left");
}
