/* test_options.c — which option combinations v8walk accepts, and the one-line reason for each it
 * refuses (options_conflict), and that parse_options applies them. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <stdio.h>
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
    {"--pid --json", {PID, .json = true}, "--json goes with --dump, --core or --stalls"},
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
    {"--on-cpu", {PID, .on_cpu = true}, NULL},
    {"--on-cpu --mode bpf", {PID, .on_cpu = true, .sampler = SAMPLER_BPF}, NULL},
    {"--on-cpu --mode ptrace", {PID, .on_cpu = true, .sampler = SAMPLER_PTRACE}, "--on-cpu needs eBPF"},
    {"--on-cpu --idle", {PID, .on_cpu = true, .idle = true}, "--idle needs ptrace mode"},
    /* --stalls watches running loops with eBPF */
    {"--stalls", {PID, .stalls_ms = 50}, NULL},
    {"--stalls, two --pid", {TWO_PIDS, .stalls_ms = 50}, NULL},
    {"--stalls --all-node", {.all_node = true, .stalls_ms = 50}, NULL},
    {"--stalls -- PROGRAM", {.command = command, .stalls_ms = 50}, NULL},
    {"--stalls --mode ptrace", {PID, .stalls_ms = 50, .sampler = SAMPLER_PTRACE},
     "--stalls watches the event loop with eBPF"},
    {"--stalls --dump", {PID, .stalls_ms = 50, .mode = MODE_DUMP}, "--stalls watches running event loops"},
    {"--stalls --core", {.core = "core", .stalls_ms = 50}, "--stalls watches running event loops"},
    {"--stalls top", {PID, .stalls_ms = 50, .top = true}, "--stalls watches running event loops"},
    {"--stalls --on-cpu", {PID, .stalls_ms = 50, .on_cpu = true}, "--stalls samples a stalled main thread"},
    {"--stalls --json -o f", {PID, .stalls_ms = 50, .json = true, .output = "f"}, NULL},
    {"--stalls --json", {PID, .stalls_ms = 50, .json = true}, "with --stalls --json the stalls go to stdout"},
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

/* Parse a command line given as one string of space-separated words; false with *why set. */
static bool parse_line(const char *line, struct plan *p, struct strbuf *why)
{
	static char buf[512];
	static char *argv[32];
	snprintf(buf, sizeof(buf), "v8walk %s", line);
	int argc = 0;
	for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	optind = 0;
	sb_reset(why);
	return parse_options(argc, argv, p, why);
}

/* A command line and what it resolves to: the action and sampler, or the start of the refusal. */
struct resolution {
	const char *line;
	enum action action;
	enum sampler_kind sampler;
	const char *refusal;
};

static const struct resolution resolutions[] = {
    {"--pid 42", ACTION_PROFILE, SAMPLER_PTRACE, NULL},
    {"--pid 42 --mode bpf", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--pid 42 --pid 43", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--pid 42 --kernel", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--pid 42 --on-cpu", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--pid 42 --stalls 50", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--pid 42 --stalls 0.5", 0, 0, "--stalls needs a threshold in milliseconds (at least 1), not '0.5'"},
    {"--pid 42 --stalls 50 --json -o /dev/null", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"--all-node --period 60 --export clickhouse://h/db", ACTION_PROFILE, SAMPLER_BPF, NULL},
    {"-- node app.js", ACTION_PROFILE, SAMPLER_PTRACE, NULL},
    {"top --pid 42", ACTION_TOP, SAMPLER_PTRACE, NULL},
    {"--top --pid 42 --mode bpf", ACTION_TOP, SAMPLER_BPF, NULL},
    {"--pid 42 --dump", ACTION_DUMP, SAMPLER_PTRACE, NULL},
    {"--core core --json", ACTION_CORE, SAMPLER_PTRACE, NULL},
    {"--core core --version-info", ACTION_CORE, SAMPLER_PTRACE, NULL},
    {"--pid 42 --version-info", ACTION_VERSION_INFO, SAMPLER_PTRACE, NULL},
    {"-h", ACTION_HELP, SAMPLER_AUTO, NULL},
    {"--pid 42 --help", ACTION_HELP, SAMPLER_AUTO, NULL},
    {"-V", ACTION_VERSION, SAMPLER_AUTO, NULL},
    /* values */
    {"--pid abc", 0, 0, "--pid needs a process id, not 'abc'"},
    {"--pid 0", 0, 0, "--pid needs a process id, not '0'"},
    {"--pid 42 --mode fast", 0, 0, "--mode is ptrace, bpf or auto, not 'fast'"},
    {"--pid 42 --format png", 0, 0, "--format is one of"},
    {"--pid 42 -o prof.png", 0, 0, "which format for prof.png?"},
    {"--pid 42 --rate 0", 0, 0, "--rate must be between 1 and 10000 Hz, not '0'"},
    {"--pid 42 --duration -1", 0, 0, "--duration needs a positive number of seconds"},
    {"--pid 42 --period 0.01 -o p-%n.folded", 0, 0, "--period needs a number of seconds (at least 0.05)"},
    {"--pid 42 --min-percent 101", 0, 0, "--min-percent needs a number from 0 to 100, not '101'"},
    {"--pid 42 --force-v8-version x", 0, 0, "--force-v8-version needs a version like 12.4"},
    {"--pid 42 --stack-kb 2", 0, 0, "--stack-kb must be between 4 and 8192, not '2'"},
    {"--pid 42 --stop-limit-us -5", 0, 0, "--stop-limit-us must be between 0 and 1000000, not '-5'"},
    {"--pid 42 --stop-limit-us 1ms", 0, 0, "--stop-limit-us must be between 0 and 1000000, not '1ms'"},
    {"--pid 42 --rate", 0, 0, "--rate needs a value"},
    {"--pid 42 --frobnicate", 0, 0, "unknown option '--frobnicate'"},
    {"--pid 42 extra", 0, 0, "unexpected argument 'extra'"},
    {"--pid 42 --", 0, 0, "which program?"},
    {"--pid 42 --export mysql://h/db", 0, 0, "--export mysql://h/db: the address must start with"},
    {"--pid 42 --export clickhouse://h/db --label =x", 0, 0, "--label needs KEY=VALUE"},
    {"--pid 42 --export clickhouse://h/db --label host=a", 0, 0, "--label host: v8walk fills that column"},
    {"--pid 42 --export clickhouse://h/db --label container=a", 0, 0, "--label container: v8walk fills that label itself"},
    {"--pid 42 --export clickhouse://h/db --spool-max-mb 0", 0, 0, "--spool-max-mb needs a size in MiB"},
    /* combinations (options_conflict, through parse_options) */
    {"--core core --raw", 0, 0, "--text and --raw (--format) shape a sampled profile"},
    {"--pid 42 --mode ptrace --kernel", 0, 0, "--kernel needs eBPF sampling"},
    {"--pid 42 --label env=prod", 0, 0, "--label, --export-credentials, --spool"},
};

Test(options, each_command_line_resolves_to_its_plan_or_its_one_reason)
{
	struct strbuf why;
	sb_init(&why);
	for (size_t i = 0; i < sizeof(resolutions) / sizeof(resolutions[0]); i++) {
		const struct resolution *r = &resolutions[i];
		struct plan p;
		bool ok = parse_line(r->line, &p, &why);
		if (r->refusal) {
			cr_expect_not(ok, "'%s': accepted, expected '%s…'", r->line, r->refusal);
			cr_expect(strncmp(why.s, r->refusal, strlen(r->refusal)) == 0,
				  "'%s': refused with '%s', expected '%s…'", r->line, why.s, r->refusal);
			cr_expect_null(strchr(why.s, '\n'), "'%s': one line, got '%s'", r->line, why.s);
			continue;
		}
		cr_expect(ok, "'%s': refused: %s", r->line, why.s);
		if (!ok)
			continue;
		cr_expect_eq(p.action, r->action, "'%s': action %d, expected %d", r->line, p.action, r->action);
		if (r->action == ACTION_PROFILE || r->action == ACTION_TOP)
			cr_expect_eq(p.sampler, r->sampler, "'%s': sampler %d, expected %d", r->line, p.sampler,
				     r->sampler);
	}
	sb_free(&why);
}

/* The writer: --format, else -o's extension, else the tree; more -o files keep their own. */
Test(options, the_writer_comes_from_format_then_the_extension)
{
	struct strbuf why;
	sb_init(&why);
	struct plan p;
	cr_assert(parse_line("--pid 42", &p, &why));
	cr_expect_str_eq(p.o.writer->name, "tree");
	cr_assert(parse_line("--pid 42 -o prof.pb.gz -o prof.svg", &p, &why));
	cr_expect_str_eq(p.o.writer->name, "pprof");
	cr_assert_eq(p.o.nmore, 1);
	cr_expect_str_eq(p.o.more_writers[0]->name, "svg");
	cr_assert(parse_line("--pid 42 --raw -o prof.svg", &p, &why));
	cr_expect_str_eq(p.o.writer->name, "folded");
	sb_free(&why);
}

/* Await chains by default; --v8-self records the machine's stack as V8 does (no await chains)
 * unless --async is given, in either order. */
Test(options, v8_self_leaves_await_chains_out_unless_asked)
{
	struct strbuf why;
	sb_init(&why);
	struct plan p;
	cr_assert(parse_line("--pid 42", &p, &why));
	cr_expect(p.o.async);
	cr_assert(parse_line("--pid 42 --v8-self", &p, &why));
	cr_expect(!p.o.async);
	cr_assert(parse_line("--pid 42 --v8-self --async", &p, &why));
	cr_expect(p.o.async);
	cr_assert(parse_line("--pid 42 --async --v8-self", &p, &why));
	cr_expect(p.o.async);
	cr_assert(parse_line("--pid 42 --no-async", &p, &why));
	cr_expect(!p.o.async);
	sb_free(&why);
}

/* -o - is standard output, in --format's format (the tree without it), and only as the first -o. */
Test(options, dash_output_is_stdout_and_only_the_first)
{
	struct strbuf why;
	sb_init(&why);
	struct plan p;
	cr_assert(parse_line("--pid 42 -f pprof -o -", &p, &why), "%s", why.s);
	cr_expect_null(p.o.output);
	cr_expect(p.o.output_stdout);
	cr_expect_str_eq(p.o.writer->name, "pprof");
	cr_assert(parse_line("--pid 42 -o - -o prof.svg", &p, &why), "%s", why.s);
	cr_expect_null(p.o.output);
	cr_expect_str_eq(p.o.writer->name, "tree");
	cr_assert_eq(p.o.nmore, 1);
	cr_expect_str_eq(p.o.more_outputs[0], "prof.svg");
	cr_expect_not(parse_line("--pid 42 -o prof.svg -o -", &p, &why));
	cr_expect(strstr(why.s, "-o - (standard output) must be the first -o"), "%s", why.s);
	cr_expect_not(parse_line("--pid 42 -o - -o -", &p, &why));
	cr_expect(strstr(why.s, "must be the first -o"), "%s", why.s);
	sb_free(&why);
}

/* What the user typed is quoted escaped: a control byte cannot reach the terminal. */
Test(options, a_refusal_quotes_the_argument_escaped)
{
	char a0[] = "v8walk", a1[] = "--pid", a2[] = "4\x1b[2J";
	char *argv[] = {a0, a1, a2, NULL};
	struct plan p;
	struct strbuf why;
	sb_init(&why);
	optind = 0;
	cr_assert_not(parse_options(3, argv, &p, &why));
	cr_expect_str_eq(why.s, "--pid needs a process id, not '4\\x1b[2J'");
	sb_free(&why);
}

Test(options, stalls_sample_at_their_own_rate_unless_given_one)
{
	struct plan p;
	struct strbuf why;
	sb_init(&why);
	cr_assert(parse_line("--pid 42 --stalls 50", &p, &why), "%s", why.s);
	cr_assert_float_eq(p.o.rate_hz, STALLS_RATE_HZ, 1e-9);
	cr_assert_float_eq(p.o.stalls_ms, 50.0, 1e-9);
	cr_assert(parse_line("--pid 42 --stalls 50 --rate 199", &p, &why), "%s", why.s);
	cr_assert_float_eq(p.o.rate_hz, 199.0, 1e-9);
	cr_assert(parse_line("--pid 42", &p, &why), "%s", why.s);
	cr_assert_float_eq(p.o.rate_hz, 99.0, 1e-9);
	sb_free(&why);
}
