/* test_cpu_share.c — a process's samples against the CPU time the kernel accounted: the fields of
 * a /proc/PID/stat line (a command name of spaces and parentheses, truncated and hostile lines),
 * and the rule that names a process far below its due (not one in sampling noise). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../sampling/cpu_share.h"
#include "../../util/proc_stat.h"

static bool parse(const char *line, struct proc_stat *st)
{
	return proc_stat_parse(line, strlen(line), st);
}

Test(proc_stat, fields_after_the_last_parenthesis)
{
	struct proc_stat st;
	cr_assert(parse("4242 (node) R 1 4242 4242 0 -1 4194560 1000 0 0 0 1234 56 0 0 20 0 11 0", &st));
	cr_assert_eq(st.state, 'R');
	cr_assert_eq(st.utime, 1234);
	cr_assert_eq(st.stime, 56);
	/* a name a process chose itself: spaces, parentheses, a fake state after ") " */
	cr_assert(parse("7 (a) S 9 9 (x) ) D 1 2 3 4 5 6 7 8 9 10 77 88 0 0", &st));
	cr_assert_eq(st.state, 'D', "fields count from the last ')'");
	cr_assert_eq(st.utime, 77);
	cr_assert_eq(st.stime, 88);
}

Test(proc_stat, refuses_what_is_not_such_a_line)
{
	struct proc_stat st;
	cr_assert_not(parse("", &st));
	cr_assert_not(parse("4242 node R 1", &st), "no parentheses");
	cr_assert_not(parse("4242 (node)", &st), "nothing after the name");
	cr_assert_not(parse("4242 (node) R 1 2 3 4 5 6 7 8 9 10", &st), "cut before utime");
	cr_assert_not(parse("4242 (node) R 1 2 3 4 5 6 7 8 9 10 x 5", &st), "utime not a number");
	cr_assert_not(parse("4242 (node) R 1 2 3 4 5 6 7 8 9 10 99999999999999999999999 5 0", &st),
		      "utime past 64 bits");
	/* not NUL-terminated: only len bytes are read */
	const char line[] = "1 (n) R 1 2 3 4 5 6 7 8 9 10 11 12 13";
	cr_assert_not(proc_stat_parse(line, 30, &st), "cut at len, before stime");
}

Test(proc_stat, this_process_has_cpu_time)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < 50u * 1000 * 1000; i++)
		x += i;
	uint64_t ns;
	cr_assert(proc_cpu_ns(getpid(), &ns));
	cr_assert_gt(ns, 0, "a loop of 50 M additions took some CPU");
	cr_assert_not(proc_cpu_ns(0x7ffffff0, &ns), "no such process");
}

Test(cpu_share, far_below_is_named_noise_is_not)
{
	double due;
	/* a busy process at 99 Hz for 3 s: due ~297 */
	cr_assert(cpu_share_far_below(13, 3.0, 99, &due), "13 of 297: the lost process");
	cr_assert_float_eq(due, 297.0, 1e-9);
	cr_assert(cpu_share_far_below(162, 3.0, 99, &due), "162 of 297");
	cr_assert_not(cpu_share_far_below(190, 3.0, 99, &due), "190 of 297: 64 %, not far below");
	cr_assert_not(cpu_share_far_below(297, 3.0, 99, &due));
	cr_assert_not(cpu_share_far_below(900, 3.0, 99, &due), "more (waits counted) is never named");
	/* a small due: a count far under 60 % of it is still within four standard deviations */
	cr_assert_not(cpu_share_far_below(9, 0.2, 99, &due), "9 of ~20");
	cr_assert_not(cpu_share_far_below(0, 0.05, 99, &due), "0 of ~5");
	cr_assert(cpu_share_far_below(0, 0.5, 99, &due), "0 of ~50");
	cr_assert_not(cpu_share_far_below(0, 0.0, 99, &due), "no CPU, nothing due");
}

Test(cpu_share, warns_with_one_line_and_a_note)
{
	char buf[512] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	struct strbuf note;
	sb_init(&note);
	struct cpu_mark from = {.taken = true, .cpu_ns = 1000000000ULL, .samples = 10};
	struct cpu_mark to = {.taken = true, .cpu_ns = 4000000000ULL, .samples = 23};
	cr_assert(cpu_share_warn(out, &from, &to, 42, "node", 99, "over the run", &note));
	struct cpu_mark fine = {.taken = true, .cpu_ns = 4000000000ULL, .samples = 300};
	cr_assert_not(cpu_share_warn(out, &from, &fine, 43, "node", 99, "over the run", &note));
	struct cpu_mark gone = {.taken = false};
	cr_assert_not(cpu_share_warn(out, &from, &gone, 44, "node", 99, "over the run", &note),
		      "a process gone at the end is not judged");
	fclose(out);
	cr_assert_str_eq(buf, "v8walk: warning: process 42 (node) got 13 samples over the run for "
			      "3.00 s of CPU, where 99 Hz is due about 297: its share of the profile "
			      "is too small\n");
	cr_assert_str_eq(note.s, "under-sampled: process 42 13 of ~297 samples due");
	sb_free(&note);
}
