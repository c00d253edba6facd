/* test_options.c — which option combinations v8walk accepts, and the one-line reason for each it
 * refuses (options_conflict), and that parse_options applies them. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <string.h>

#include "../../cli/exit_codes.h"
#include "../../cli/options.h"

static char program[] = "node";
static char *command[] = {program, NULL};

/* What parse_options leaves before any option: the defaults, no target. */
static struct options none(void)
{
	struct options o;
	memset(&o, 0, sizeof(o));
	o.rate_hz = 99;
	o.min_percent = 0.5;
	o.stack_kb = 64;
	return o;
}

static struct options one_pid(void)
{
	struct options o = none();
	o.pids[0] = o.pid = 4242;
	o.npids = 1;
	return o;
}

static struct options two_pids(void)
{
	struct options o = one_pid();
	o.pids[1] = 4243;
	o.npids = 2;
	return o;
}

static struct options core(void)
{
	struct options o = none();
	o.core = "core";
	return o;
}

static void refused(const struct options *o, const char *start)
{
	const char *why = options_conflict(o);
	cr_assert_not_null(why, "expected a refusal starting '%s'", start);
	cr_assert(strncmp(why, start, strlen(start)) == 0, "refusal '%s' does not start '%s'", why, start);
}

static void accepted(const struct options *o)
{
	const char *why = options_conflict(o);
	cr_assert_null(why, "refused: %s", why ? why : "");
}

Test(options, a_target_must_be_named_once)
{
	struct options o = none();
	refused(&o, "which process?");
	o = one_pid();
	o.all_node = true;
	refused(&o, "give one of --pid, --all-node and -- PROGRAM");
	o = one_pid();
	o.command = command;
	refused(&o, "give one of");
	o = one_pid();
	accepted(&o);
	o = none();
	o.all_node = true;
	accepted(&o);
	o = none();
	o.command = command;
	accepted(&o);
	o = two_pids();
	accepted(&o);
}

Test(options, core_goes_alone_and_exe_with_it)
{
	struct options o = core();
	accepted(&o);
	o.exe = "/usr/bin/node";
	o.json = true;
	accepted(&o);
	o = core();
	o.npids = 1;
	o.pid = o.pids[0] = 1;
	refused(&o, "--core reads a core file");
	o = core();
	o.mode = MODE_DUMP;
	refused(&o, "--core reads a core file");
	o = core();
	o.command = command;
	refused(&o, "--core reads a core file");
	o = one_pid();
	o.exe = "/usr/bin/node";
	refused(&o, "--exe goes with --core");
	o = core();
	o.format_set = true;
	refused(&o, "--text and --raw shape a sampled profile");
}

Test(options, json_goes_with_dump_or_core)
{
	struct options o = one_pid();
	o.json = true;
	refused(&o, "--json goes with --dump or --core");
	o.mode = MODE_DUMP;
	accepted(&o);
	o.format_set = true;
	refused(&o, "--text and --raw shape a sampled profile");
}

Test(options, dump_and_version_info_look_at_one_process)
{
	struct options o = two_pids();
	o.mode = MODE_DUMP;
	refused(&o, "--dump looks at one running process");
	o = none();
	o.command = command;
	o.version_info = true;
	refused(&o, "--version-info looks at one running process");
	o = one_pid();
	o.version_info = true;
	accepted(&o);
	o = one_pid();
	o.mode = MODE_DUMP;
	o.sampler = SAMPLER_BPF;
	refused(&o, "--dump stops each thread once with ptrace");
	o.sampler = SAMPLER_AUTO;
	o.kernel = true;
	refused(&o, "--dump stops each thread once with ptrace");
}

Test(options, samplers_and_what_each_can_do)
{
	struct options o = two_pids();
	o.sampler = SAMPLER_PTRACE;
	refused(&o, "ptrace mode samples one process");
	o = none();
	o.all_node = true;
	o.sampler = SAMPLER_PTRACE;
	refused(&o, "ptrace mode samples one process");
	o = one_pid();
	o.sampler = SAMPLER_PTRACE;
	o.kernel = true;
	refused(&o, "--kernel needs eBPF sampling");
	o.sampler = SAMPLER_BPF;
	accepted(&o);
	o = one_pid();
	o.idle = true;
	accepted(&o);
	o.sampler = SAMPLER_BPF;
	refused(&o, "--idle needs ptrace mode");
	o = two_pids();
	o.idle = true;
	refused(&o, "--idle needs ptrace mode");
	o = one_pid();
	o.idle = true;
	o.kernel = true;
	refused(&o, "--idle needs ptrace mode");
}

Test(options, function_and_nolineno_contradict)
{
	struct options o = one_pid();
	o.function_lines = true;
	accepted(&o);
	o.no_lines = true;
	refused(&o, "--function and --nolineno contradict each other");
}

/* parse_options applies the same rules, and --core selects the core mode */
Test(options, parse_options_applies_them)
{
	char a0[] = "v8walk", a1[] = "--core", a2[] = "core", a3[] = "--json", a4[] = "--raw";
	char *ok[] = {a0, a1, a2, a3, NULL};
	struct options o;
	int code = -1;
	optind = 0;
	cr_assert(parse_options(4, ok, &o, &code));
	cr_assert_eq(o.mode, MODE_CORE);
	cr_assert(o.json);
	char *bad[] = {a0, a1, a2, a4, NULL};
	optind = 0;
	cr_assert_not(parse_options(4, bad, &o, &code));
	cr_assert_eq(code, EXIT_USAGE);
}
