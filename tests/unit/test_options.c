/* test_options.c — which option combinations v8walk accepts, and the one-line reason for each it
 * refuses (options_conflict), and that parse_options applies them. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <string.h>

#include "../../cli/exit_codes.h"
#include "../../cli/options.h"

static char program[] = "node";
static char *command[] = {program, NULL};

#define PID .pid = 4242, .pids = {4242}, .npids = 1
#define TWO_PIDS .pid = 4242, .pids = {4242, 4243}, .npids = 2

/* A combination as parse_options leaves it before the check, and the start of the refusal
 * (NULL: accepted). */
struct combination {
	const char *what;
	struct options o;
	const char *refusal;
};

static const struct combination combinations[] = {
    /* a target, named once */
    {"nothing", {.rate_hz = 99}, "which process?"},
    {"--pid", {PID}, NULL},
    {"two --pid", {TWO_PIDS}, NULL},
    {"--all-node", {.all_node = true}, NULL},
    {"-- PROGRAM", {.command = command}, NULL},
    {"--pid --all-node", {PID, .all_node = true}, "give one of --pid, --all-node and -- PROGRAM"},
    {"--pid -- PROGRAM", {PID, .command = command}, "give one of"},
    /* --core goes alone, --exe with it */
    {"--core", {.core = "core"}, NULL},
    {"--core --exe --json", {.core = "core", .exe = "/usr/bin/node", .json = true}, NULL},
    {"--core --pid", {.core = "core", PID}, "--core reads a core file"},
    {"--core --dump", {.core = "core", .mode = MODE_DUMP}, "--core reads a core file"},
    {"--core -- PROGRAM", {.core = "core", .command = command}, "--core reads a core file"},
    {"--core --all-node", {.core = "core", .all_node = true}, "--core reads a core file"},
    {"--exe without --core", {PID, .exe = "/usr/bin/node"}, "--exe goes with --core"},
    {"--core --raw", {.core = "core", .format_set = true}, "--text and --raw (--format) shape a sampled profile"},
    /* --json with the one-shot modes */
    {"--pid --json", {PID, .json = true}, "--json goes with --dump or --core"},
    {"--dump --json", {PID, .mode = MODE_DUMP, .json = true}, NULL},
    {"--dump --text", {PID, .mode = MODE_DUMP, .format_set = true}, "--text and --raw (--format) shape"},
    {"--dump -o a -o b", {PID, .mode = MODE_DUMP, .nmore = 1}, "several -o files hold several formats"},
    {"--thread 7 without a cpuprofile", {PID, .thread = "7"}, "--thread picks the thread of a cpuprofile"},
    /* --dump and --version-info look at one process, with ptrace */
    {"--dump, two --pid", {TWO_PIDS, .mode = MODE_DUMP}, "--dump looks at one running process"},
    {"--version-info -- PROGRAM", {.command = command, .version_info = true},
     "--version-info looks at one running process"},
    {"--version-info --pid", {PID, .version_info = true}, NULL},
    {"--dump --mode bpf", {PID, .mode = MODE_DUMP, .sampler = SAMPLER_BPF},
     "--dump stops each thread once with ptrace"},
    {"--dump --kernel", {PID, .mode = MODE_DUMP, .kernel = true}, "--dump stops each thread once"},
    /* what each sampler can do */
    {"--mode ptrace, two --pid", {TWO_PIDS, .sampler = SAMPLER_PTRACE}, "ptrace mode samples one process"},
    {"--mode ptrace --all-node", {.all_node = true, .sampler = SAMPLER_PTRACE}, "ptrace mode samples one"},
    {"--mode ptrace --kernel", {PID, .sampler = SAMPLER_PTRACE, .kernel = true}, "--kernel needs eBPF"},
    {"--mode bpf --kernel", {PID, .sampler = SAMPLER_BPF, .kernel = true}, NULL},
    {"--idle", {PID, .idle = true}, NULL},
    {"--idle --mode bpf", {PID, .idle = true, .sampler = SAMPLER_BPF}, "--idle needs ptrace mode"},
    {"--idle, two --pid", {TWO_PIDS, .idle = true}, "--idle needs ptrace mode"},
    {"--idle --kernel", {PID, .idle = true, .kernel = true}, "--idle needs ptrace mode"},
    /* line modes */
    {"--function", {PID, .function_lines = true}, NULL},
    {"--function --nolineno", {PID, .function_lines = true, .no_lines = true},
     "--function and --nolineno contradict each other"},
};

Test(options, each_combination_accepted_or_refused_with_its_rule)
{
	for (size_t i = 0; i < sizeof(combinations) / sizeof(combinations[0]); i++) {
		const struct combination *c = &combinations[i];
		const char *why = options_conflict(&c->o);
		if (!c->refusal) {
			cr_expect_null(why, "%s: refused: %s", c->what, why ? why : "");
			continue;
		}
		cr_expect_not_null(why, "%s: accepted, expected '%s…'", c->what, c->refusal);
		if (why)
			cr_expect(strncmp(why, c->refusal, strlen(c->refusal)) == 0,
				  "%s: refused with '%s', expected '%s…'", c->what, why, c->refusal);
	}
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
