/* options.c — the command line resolved to a plan (what to do, with which sampler and writer, or
 * the one reason it cannot be done), and the usage text. Nothing here prints but print_usage. */
#include "../util/text_escape.h"
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "output_name.h"

/* --async by default: its cost is a few reads per sample that runs on the microtask queue
 * (docs/async.md, "What it costs") */
#define ASYNC_DEFAULT true

void print_usage(FILE *f)
{
	fprintf(f,
		"usage: v8walk --pid PID [-f FORMAT] [options]        sample a running node\n"
		"       v8walk [options] -- node app.js [args...]      start a program and sample it\n"
		"       v8walk --all-node [options]                     every node process (eBPF)\n"
		"       v8walk top --pid PID [--interval SEC]           live view of where time goes\n"
		"       v8walk --pid PID --dump [--json]                every thread's stack, once\n"
		"       v8walk --core FILE [--exe PATH] [--json]        every thread's stack in a core\n"
		"       v8walk --all-node --period SEC --export URL     ship profiles to ClickHouse\n"
		"       v8walk report --from URL --where service=NAME --since 2h -o FILE\n"
		"                                                       a fleet's profile from ClickHouse\n"
		"       v8walk schema [--cluster NAME] [--database DB] [--table T]   its tables' DDL\n"
		"\n"
		"Sample a running, unmodified Node.js process and print where its time goes:\n"
		"JavaScript frames named from V8's heap, mixed with native C++/libuv frames.\n"
		"\n"
		"target:\n"
		"  -p, --pid PID            the node process to sample (repeat for several: eBPF)\n"
		"      --all-node           every node process on the host, found by its V8 symbols\n"
		"                           (eBPF; processes that start later are added)\n"
		"  -- PROGRAM [ARGS...]     start PROGRAM and sample it from its first instruction\n"
		"                           until it exits; v8walk exits with its exit code\n"
		"      --core FILE          a core file of a node process (kernel core or gcore)\n"
		"      --exe PATH           the node binary that wrote the core (default: the path\n"
		"                           the core names; its build-id must match)\n"
		"\n"
		"one-shot:\n"
		"      --dump               print every thread's mixed stack once (innermost first)\n"
		"      --json               --dump or --core as JSON (man v8walk: JSON OUTPUT)\n"
		"      --pending            with --dump or --core: every async function the process\n"
		"                           is waiting in, with where it awaits and who awaits it,\n"
		"                           identical chains counted once (docs/async.md)\n"
		"\n"
		"output:\n"
		"  -f, --format NAME        tree (default), folded, svg, speedscope, cpuprofile or pprof;\n"
		"                           without it, -o FILE's extension decides: .txt .folded\n"
		"                           .collapsed .svg .speedscope.json .cpuprofile .pb.gz .pprof\n"
		"      --text               the same as --format tree\n"
		"      --raw                the same as --format folded (flamegraph.pl, speedscope)\n"
		"  -o, --output FILE        write the profile to FILE (- or none: stdout); give -o again to\n"
		"                           write the same samples to more files (format by extension)\n"
		"      --thread TID|NAME    cpuprofile: the thread to write (default: the main thread)\n"
		"      --min-percent P      --text: fold subtrees below P%% of samples (default 0.5)\n"
		"      --function           aggregate JS frames by function (definition line)\n"
		"      --nolineno           no line numbers in JS frames\n"
		"      --full-names         C++ names with parameter lists\n"
		"      --v8-self            charge self time as V8's --cpu-prof does, not to what\n"
		"                           runs at the pc (to compare with a --cpu-prof profile;\n"
		"                           implies --no-async unless --async is given)\n"
		"      --no-async           past an await, show the microtask queue's frames under a\n"
		"                           resumed function, not the async functions awaiting it\n"
		"                           (--async, the default: `async f` frames, docs/async.md)\n"
		"      --no-source-maps     JS frames at their position in the running code, not the\n"
		"                           original source their sourceMappingURL comment maps to\n"
		"      --period SEC         one profile per SEC seconds, each in its own -o file: the\n"
		"                           name may hold %%n (1, 2, …) and strftime fields\n"
		"                           (prof-%%Y%%m%%dT%%H%%M%%S.pb.gz); files appear by rename\n"
		"  kill -USR1 <v8walk>      writes the profile so far to -o; sampling goes on\n"
		"\n"
		"fleet profiling (ClickHouse; v8walk schema prints the tables, v8walk report reads them):\n"
		"      --export URL         send each period (--period, else the run) to ClickHouse:\n"
		"                           clickhouse://HOST[:PORT]/DB[.TABLE] (HTTP, port 8123),\n"
		"                           clickhouses:// or https:// for TLS; the password comes from\n"
		"                           V8WALK_CLICKHOUSE_USER/_PASSWORD or --export-credentials;\n"
		"                           V8WALK_CLICKHOUSE_CA=FILE trusts a private CA for TLS\n"
		"      --label KEY=VALUE    a label on every row (repeat); service=NAME names the\n"
		"                           service, service=auto takes package.json's name (or the\n"
		"                           script's); a process's V8WALK_SERVICE overrides both\n"
		"      --export-credentials FILE  USER:PASSWORD on the file's first line\n"
		"      --create-schema      create the tables if they are absent\n"
		"      --spool DIR          periods wait here while ClickHouse is unreachable (default\n"
		"                           $XDG_CACHE_HOME/v8walk-spool or /var/tmp/v8walk-spool)\n"
		"      --spool-max-mb N     the spool's size limit (default 256); the oldest go first\n"
		"\n"
		"top (v8walk top ..., or --top): functions by own time, refreshed every --interval\n"
		"      --interval SEC       refresh period (default 1); keys: 1-4 sort column, t thread,\n"
		"                           l line (definition/current), n native frames, w window\n"
		"                           (last interval/since start), space pause, q quit; with\n"
		"                           stdout not a terminal, one plain table per interval\n"
		"\n"
		"sampling:\n"
		"  -r, --rate HZ            samples per second, jittered (default 99)\n"
		"  -d, --duration SEC       stop after SEC seconds (default: until Ctrl-C)\n"
		"      --idle               also sample threads that are not running (wall clock)\n"
		"      --stack-kb N         stack bytes copied per sample, in KiB (default 64;\n"
		"                           eBPF: at most 12, default 8)\n"
		"      --stack-copy MODE    ptrace: who copies a stopped thread's stack; auto\n"
		"                           (default): the kernel, as the thread switches out into\n"
		"                           its stop (a perf event; root or CAP_PERFMON, or\n"
		"                           perf_event_paranoid <= 1), else v8walk (on arm64:\n"
		"                           v8walk); kernel: insist;\n"
		"                           read: v8walk (process_vm_readv), which waits while the\n"
		"                           target's own threads map or unmap memory (ms after a GC)\n"
		"      --stop-limit-us N    ptrace, when v8walk copies the stack: resume a thread\n"
		"                           whose copy is not done after N us and drop that sample\n"
		"                           (default: wait for it); the copy is then made on a\n"
		"                           second thread, ~15 us more per stop (needs real-time\n"
		"                           priority: root or CAP_SYS_NICE)\n"
		"      --mode MODE          ptrace: stop each thread for a few microseconds;\n"
		"                           bpf: a kernel program copies each sample's stack,\n"
		"                           nothing is stopped (needs root or CAP_BPF+CAP_PERFMON);\n"
		"                           auto (default): ptrace, or bpf where ptrace is refused\n"
		"                           (e.g. the target is already traced) or several\n"
		"                           processes are sampled\n"
		"      --kernel             also show kernel frames (eBPF), tagged _[k] in --raw\n"
		"      --on-cpu             eBPF: only threads on a CPU (by default a thread waiting\n"
		"                           for one is sampled too, as ptrace and V8 sample it)\n"
		"      --stalls MS          watch each target's event loop (eBPF): every iteration of\n"
		"                           MS ms or more is reported as it ends (stderr; with --json a\n"
		"                           JSON line each on stdout); only the main thread is sampled,\n"
		"                           only while an iteration runs past MS (default --rate 997):\n"
		"                           the profile is of what blocked the loop\n"
		"      --keep-root          launch mode under sudo: run the program as root (default: as\n"
		"                           the user who ran sudo, SUDO_UID/SUDO_GID and their groups)\n"
		"\n"
		"diagnostics:\n"
		"      --version-info       print what v8walk detects in the target and exit\n"
		"      --force-v8-version X.Y[.Z]  use the layout fallbacks of another V8 version\n"
		"  -q, --quiet              no summary on stderr\n"
		"  -h, --help               this help\n"
		"  -V, --version            v8walk's version\n"
		"\n"
		"exit status:\n");
	fprintf(f,
		"  %-3d  done (--core: every stack read from intact input)\n"
		"  %-3d  nothing could be done or shown; one line on stderr says why\n"
		"  %-3d  the command line is wrong\n"
		"  %-3d  --core: stacks printed, with warnings or damage in the input\n"
		"  %-3d  --export: profiled, but some periods were dropped or wait in the spool\n"
		"  %-3d  not allowed to trace the process or to use eBPF; the line says what to\n"
		"       grant (sudo, setcap, a container's flags)\n"
		"  -- PROGRAM: the program's own exit status, as a shell gives it (%d: it\n"
		"       cannot be run, %d: not found, %d+N: killed by signal N)\n"
		"\n"
		"Every option in full, the formats, permissions and examples: man v8walk\n",
		EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_DAMAGED_INPUT, EXIT_EXPORT_INCOMPLETE, EXIT_PERMISSION,
		EXIT_CANNOT_RUN, EXIT_NOT_FOUND, EXIT_SIGNAL_BASE);
}

static bool parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* The reason the command line is refused, into *why (sb_printf_text: it may quote what was
 * typed); returns false. */
static bool refuse(struct strbuf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_reset(why);
	sb_vprintf_text(why, fmt, ap);
	va_end(ap);
	return false;
}

/* A --format name, or an -o extension, that names no format. */
static bool unknown_format(const char *option, const char *value, struct strbuf *why)
{
	struct strbuf names;
	sb_init(&names);
	profile_writer_names(&names);
	if (!strcmp(option, "-o"))
		refuse(why, "which format for %s? its extension names none; give --format (%s) or use "
		       ".txt .folded .collapsed .svg .speedscope.json .cpuprofile .pb.gz .pprof", value,
		       names.s);
	else
		refuse(why, "--format is one of %s, not '%s'", names.s, value);
	sb_free(&names);
	return false;
}

bool options_add_output(struct options *o, const char *arg, struct strbuf *why)
{
	if (!strcmp(arg, "-")) {
		if (o->output || o->output_stdout)
			return refuse(why, "-o - (standard output) must be the first -o; the others name "
				      "files");
		o->output_stdout = true;
		return true;
	}
	if (!o->output && !o->output_stdout) {
		o->output = arg;
		return true;
	}
	if (o->nmore == MAX_MORE_OUTPUTS)
		return refuse(why, "at most %d -o options", MAX_MORE_OUTPUTS + 1);
	o->more_writers[o->nmore] = profile_writer_for_path(arg);
	if (!o->more_writers[o->nmore])
		return unknown_format("-o", arg, why);
	o->more_outputs[o->nmore++] = arg;
	return true;
}

/* Does the run write this format (to stdout or one of the -o files)? */
static bool writes_format(const struct options *o, const char *name)
{
	if (o->writer && !strcmp(o->writer->name, name))
		return true;
	for (size_t i = 0; i < o->nmore; i++)
		if (!strcmp(o->more_writers[i]->name, name))
			return true;
	return false;
}

const char *options_conflict(const struct options *o)
{
	int targets = (o->npids > 0) + o->all_node + (o->command != NULL) + (o->core != NULL);
	bool several = o->npids > 1 || o->all_node;
	bool one_shot = o->mode == MODE_DUMP || o->core;
	if (o->core && (o->npids || o->all_node || o->command || o->mode == MODE_DUMP))
		return "--core reads a core file: it goes without --pid and --dump (and without "
		       "--all-node or a program)";
	if (o->exe && !o->core)
		return "--exe goes with --core";
	if (o->pending && !one_shot)
		return "--pending goes with --dump (a running process) or --core";
	if (o->json && !one_shot && !o->stalls_ms)
		return "--json goes with --dump, --core or --stalls";
	if (o->format_set && one_shot)
		return "--text and --raw (--format) shape a sampled profile; --dump and --core print "
		       "stacks as text, or JSON with --json";
	if (o->nmore && (one_shot || o->version_info))
		return "several -o files hold several formats of one sampled profile";
	if (o->thread && !writes_format(o, "cpuprofile"))
		return "--thread picks the thread of a cpuprofile (--format cpuprofile or -o "
		       "FILE.cpuprofile)";
	if (o->period_s > 0 && o->top)
		return "--period cuts a recorded profile into files; top shows the profile live";
	if (o->stack_copy != STACK_COPY_AUTO && (o->sampler == SAMPLER_BPF || o->core))
		return "--stack-copy says who copies a stopped thread's stack in ptrace mode; eBPF "
		       "mode and --core stop no thread";
	const char *export_conflict = export_options_conflict(&o->export);
	if (export_conflict)
		return export_conflict;
	if (o->export.url_text && (one_shot || o->top || o->version_info))
		return "--export sends sampled profiles; it goes without --dump, --core, top and "
		       "--version-info";
	if (o->period_s > 0 && !o->output && !o->export.url_text)
		return "--period writes each period to its own file: give -o NAME with %n or strftime "
		       "fields";
	if (o->period_s > 0 && o->output && !output_name_has_fields(o->output))
		return "with --period, -o needs %n or a strftime field (e.g. prof-%n.pb.gz, "
		       "prof-%Y%m%dT%H%M%S.pb.gz) so that each period has a file of its own";
	if (o->interval_s > 0 && !o->top)
		return "--interval is top's refresh period (v8walk top ...)";
	if (o->top && (one_shot || o->version_info))
		return "top samples a running process; it goes without --dump, --core and --version-info";
	if (o->function_lines && o->no_lines)
		return "--function and --nolineno contradict each other";
	if (targets == 0)
		return "which process? give --pid PID, --core FILE, --all-node, or -- PROGRAM ARGS... "
		       "(see v8walk --help)";
	if (targets > 1)
		return "give one of --pid, --all-node and -- PROGRAM, not several";
	if ((o->mode == MODE_DUMP || o->version_info) && (several || o->command))
		return o->mode == MODE_DUMP ? "--dump looks at one running process: give one --pid"
					    : "--version-info looks at one running process: give one --pid";
	if (o->mode == MODE_DUMP && (o->sampler == SAMPLER_BPF || o->kernel))
		return "--dump stops each thread once with ptrace; it has no eBPF form";
	if (o->sampler == SAMPLER_PTRACE && several)
		return "ptrace mode samples one process; use --mode bpf (or auto) for several";
	if (o->sampler == SAMPLER_PTRACE && o->kernel)
		return "--kernel needs eBPF sampling (--mode bpf, or auto)";
	if (o->sampler == SAMPLER_PTRACE && o->on_cpu)
		return "--on-cpu needs eBPF sampling (--mode bpf, or auto): ptrace samples every "
		       "runnable thread";
	if (o->stalls_ms && (one_shot || o->top || o->version_info))
		return "--stalls watches running event loops; it goes without --dump, --core, top and "
		       "--version-info";
	if (o->stalls_ms && o->sampler == SAMPLER_PTRACE)
		return "--stalls watches the event loop with eBPF (--mode bpf, or auto)";
	if (o->stalls_ms && (o->idle || o->on_cpu))
		return "--stalls samples a stalled main thread on a CPU and off it; it goes without "
		       "--idle and --on-cpu";
	if (o->stalls_ms && o->json && (o->output_stdout || !o->output))
		return "with --stalls --json the stalls go to stdout: write their profile with -o FILE "
		       "(-o /dev/null for none)";
	if (o->idle && (o->sampler == SAMPLER_BPF || several || o->kernel || o->on_cpu))
		return "--idle needs ptrace mode: eBPF sampling sees threads on a CPU or waiting for "
		       "one, not sleeping ones";
	return NULL;
}

/* Which action the parsed options ask for. */
static enum action action_of(const struct options *o)
{
	if (o->core)
		return ACTION_CORE;
	if (o->version_info)
		return ACTION_VERSION_INFO;
	if (o->mode == MODE_DUMP)
		return ACTION_DUMP;
	return o->top ? ACTION_TOP : ACTION_PROFILE;
}

/* The sampler that runs first: eBPF when asked for, or when only it can (several processes,
 * kernel frames); otherwise ptrace (which, in --mode auto, may hand over to eBPF when refused). */
static enum sampler_kind sampler_of(const struct options *o)
{
	if (o->sampler == SAMPLER_BPF || o->npids > 1 || o->all_node || o->kernel || o->on_cpu ||
	    o->stalls_ms)
		return SAMPLER_BPF;
	return SAMPLER_PTRACE;
}

bool parse_options(int argc, char **argv, struct plan *plan, struct strbuf *why)
{
	enum { O_TEXT = 256, O_RAW, O_DUMP, O_JSON, O_IDLE, O_FUNCTION, O_NOLINENO, O_FULLNAMES, O_MINPCT, O_VINFO,
	       O_FORCE, O_STACKKB, O_MODE, O_ALLNODE, O_KERNEL, O_CORE, O_EXE, O_KEEPROOT, O_THREAD,
	       O_NOSOURCEMAPS, O_PERIOD, O_TOP, O_INTERVAL, O_V8SELF, O_STOPLIMIT, O_ONCPU, O_STALLS,
	       O_STACKCOPY, O_ASYNC, O_NOASYNC, O_PENDING };
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"core", required_argument, NULL, O_CORE},
	    {"exe", required_argument, NULL, O_EXE},
	    {"text", no_argument, NULL, O_TEXT},
	    {"raw", no_argument, NULL, O_RAW},
	    {"format", required_argument, NULL, 'f'},
	    {"thread", required_argument, NULL, O_THREAD},
	    {"dump", no_argument, NULL, O_DUMP},
	    {"json", no_argument, NULL, O_JSON},
	    {"output", required_argument, NULL, 'o'},
	    {"rate", required_argument, NULL, 'r'},
	    {"duration", required_argument, NULL, 'd'},
	    {"idle", no_argument, NULL, O_IDLE},
	    {"function", no_argument, NULL, O_FUNCTION},
	    {"nolineno", no_argument, NULL, O_NOLINENO},
	    {"full-names", no_argument, NULL, O_FULLNAMES},
	    {"v8-self", no_argument, NULL, O_V8SELF},
	    {"no-source-maps", no_argument, NULL, O_NOSOURCEMAPS},
	    {"async", no_argument, NULL, O_ASYNC},
	    {"no-async", no_argument, NULL, O_NOASYNC},
	    {"pending", no_argument, NULL, O_PENDING},
	    {"min-percent", required_argument, NULL, O_MINPCT},
	    {"version-info", no_argument, NULL, O_VINFO},
	    {"force-v8-version", required_argument, NULL, O_FORCE},
	    {"stack-kb", required_argument, NULL, O_STACKKB},
	    {"stop-limit-us", required_argument, NULL, O_STOPLIMIT},
	    {"stack-copy", required_argument, NULL, O_STACKCOPY},
	    {"mode", required_argument, NULL, O_MODE},
	    {"all-node", no_argument, NULL, O_ALLNODE},
	    {"kernel", no_argument, NULL, O_KERNEL},
	    {"on-cpu", no_argument, NULL, O_ONCPU},
	    {"stalls", required_argument, NULL, O_STALLS},
	    {"keep-root", no_argument, NULL, O_KEEPROOT},
	    {"period", required_argument, NULL, O_PERIOD},
	    {"top", no_argument, NULL, O_TOP},
	    {"interval", required_argument, NULL, O_INTERVAL},
	    {"export", required_argument, NULL, XO_EXPORT},
	    {"label", required_argument, NULL, XO_LABEL},
	    {"export-credentials", required_argument, NULL, XO_CREDENTIALS},
	    {"spool", required_argument, NULL, XO_SPOOL},
	    {"spool-max-mb", required_argument, NULL, XO_SPOOL_MAX_MB},
	    {"create-schema", no_argument, NULL, XO_CREATE_SCHEMA},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	memset(plan, 0, sizeof(*plan));
	struct options *o = &plan->o;
	sigprocmask(SIG_BLOCK, NULL, &o->given_sigmask); /* before v8walk blocks anything */
	if (getrlimit(RLIMIT_NOFILE, &o->given_nofile) != 0)
		o->given_nofile.rlim_cur = o->given_nofile.rlim_max = RLIM_INFINITY; /* leave it */
	o->rate_hz = 99;
	o->min_percent = 0.5;
	o->async = ASYNC_DEFAULT;
	o->stack_kb = 64;
	/* `v8walk top ARGS`: the subcommand is argv[0] of what getopt reads */
	if (argc > 1 && !strcmp(argv[1], "top")) {
		o->top = true;
		argc--;
		argv++;
	}
	int c;
	opterr = 0;
	bool async_given = false; /* --async or --no-async (else --v8-self decides) */
	/* '+': options end at the first non-option (the program of launch mode follows `--`) */
	while ((c = getopt_long(argc, argv, "+:p:o:r:d:f:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 0);
			if (*end || v <= 0 || v > 0x7fffffff) {
				return refuse(why, "--pid needs a process id, not '%s'", optarg);
			}
			if (o->npids == MAX_PIDS)
				return refuse(why, "at most %d --pid options", MAX_PIDS);
			o->pids[o->npids++] = (pid_t)v;
			o->pid = o->pids[0];
			break;
		}
		case O_MODE:
			if (strcmp(optarg, "ptrace") == 0)
				o->sampler = SAMPLER_PTRACE;
			else if (strcmp(optarg, "bpf") == 0)
				o->sampler = SAMPLER_BPF;
			else if (strcmp(optarg, "auto") == 0)
				o->sampler = SAMPLER_AUTO;
			else
				return refuse(why, "--mode is ptrace, bpf or auto, not '%s'", optarg);
			break;
		case O_ALLNODE: o->all_node = true; break;
		case O_KERNEL: o->kernel = true; break;
		case O_ONCPU: o->on_cpu = true; break;
		case O_STALLS:
			if (!parse_double(optarg, &o->stalls_ms) || o->stalls_ms < 1 || o->stalls_ms > 3600000)
				return refuse(why, "--stalls needs a threshold in milliseconds (at least 1), "
					      "not '%s'", optarg);
			break;
		case O_KEEPROOT: o->keep_root = true; break;
		case O_CORE: o->core = optarg; break;
		case O_EXE: o->exe = optarg; break;
		case O_TEXT: o->writer = profile_writer_named("tree"); o->format_set = true; break;
		case O_RAW: o->writer = profile_writer_named("folded"); o->format_set = true; break;
		case 'f':
			o->writer = profile_writer_named(optarg);
			o->format_set = true;
			if (!o->writer)
				return unknown_format("--format", optarg, why);
			break;
		case O_THREAD: o->thread = optarg; break;
		case O_DUMP: o->mode = MODE_DUMP; break;
		case O_JSON: o->json = true; break;
		case 'o':
			if (!options_add_output(o, optarg, why))
				return false;
			break;
		case 'r':
			if (!parse_double(optarg, &o->rate_hz) || o->rate_hz < 1 || o->rate_hz > 10000)
				return refuse(why, "--rate must be between 1 and 10000 Hz, not '%s'", optarg);
			o->rate_set = true;
			break;
		case 'd':
			if (!parse_double(optarg, &o->duration_s) || o->duration_s <= 0)
				return refuse(why, "--duration needs a positive number of seconds, not '%s'",
					      optarg);
			break;
		case O_PERIOD:
		case O_INTERVAL: {
			double *v = c == O_PERIOD ? &o->period_s : &o->interval_s;
			if (!parse_double(optarg, v) || *v < 0.05 || *v > 1e7)
				return refuse(why, "%s needs a number of seconds (at least 0.05), not '%s'",
					      c == O_PERIOD ? "--period" : "--interval", optarg);
			break;
		}
		case O_TOP: o->top = true; break;
		case XO_EXPORT:
		case XO_LABEL:
		case XO_CREDENTIALS:
		case XO_SPOOL:
		case XO_SPOOL_MAX_MB:
		case XO_CREATE_SCHEMA:
			if (!export_option(c, optarg, &o->export, why))
				return false;
			break;
		case O_IDLE: o->idle = true; break;
		case O_FUNCTION: o->function_lines = true; break;
		case O_NOLINENO: o->no_lines = true; break;
		case O_FULLNAMES: o->full_native_names = true; break;
		case O_V8SELF: o->v8_self = true; break;
		case O_NOSOURCEMAPS: o->no_source_maps = true; break;
		case O_ASYNC: o->async = true; async_given = true; break;
		case O_NOASYNC: o->async = false; async_given = true; break;
		case O_PENDING: o->pending = true; break;
		case O_MINPCT:
			if (!parse_double(optarg, &o->min_percent) || o->min_percent > 100)
				return refuse(why, "--min-percent needs a number from 0 to 100, not '%s'", optarg);
			break;
		case O_VINFO: o->version_info = true; break;
		case O_FORCE:
			if (!v8_version_parse(optarg, &o->force_version))
				return refuse(why, "--force-v8-version needs a version like 12.4, not '%s'", optarg);
			o->have_force_version = true;
			break;
		case O_STACKKB: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 4 || v > 8192)
				return refuse(why, "--stack-kb must be between 4 and 8192, not '%s'", optarg);
			o->stack_kb = (unsigned)v;
			o->stack_kb_set = true;
			break;
		}
		case O_STOPLIMIT: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1000000)
				return refuse(why, "--stop-limit-us must be between 0 and 1000000, not '%s'",
					      optarg);
			o->stop_limit_us = (unsigned)v;
			break;
		}
		case O_STACKCOPY:
			if (!strcmp(optarg, "auto"))
				o->stack_copy = STACK_COPY_AUTO;
			else if (!strcmp(optarg, "kernel"))
				o->stack_copy = STACK_COPY_KERNEL;
			else if (!strcmp(optarg, "read"))
				o->stack_copy = STACK_COPY_READ;
			else
				return refuse(why, "--stack-copy is auto, kernel or read, not '%s'", optarg);
			break;
		case 'q': o->quiet = true; break;
		/* --help and --version win over anything else on the line, as getopt meets them */
		case 'h': plan->action = ACTION_HELP; return true;
		case 'V': plan->action = ACTION_VERSION; return true;
		case ':':
			return refuse(why, "%s needs a value", argv[optind - 1]);
		default:
			return refuse(why, "unknown option '%s' (see v8walk --help)", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return refuse(why, "unexpected argument '%s' (to start a program: v8walk [options] "
				      "-- PROGRAM ARGS...)", argv[optind]);
		o->command = &argv[optind];
	} else if (optind > 0 && strcmp(argv[optind - 1], "--") == 0) {
		return refuse(why, "which program? `--` must be followed by the program to start");
	}
	if (!o->writer && o->output && o->mode == MODE_RECORD && !o->core && !o->version_info) {
		/* -o /dev/null: no profile is wanted, in whatever format */
		o->writer = !strcmp(o->output, "/dev/null") ? profile_writer_named("folded")
							    : profile_writer_for_path(o->output);
		if (!o->writer)
			return unknown_format("-o", o->output, why);
	}
	if (!o->writer)
		o->writer = profile_writer_named("tree");
	if (o->stalls_ms && !o->rate_set)
		o->rate_hz = STALLS_RATE_HZ;
	/* --v8-self: the stack V8's profiler records is the machine's, the microtask queue's frames
	 * under a resumed function (no await chains), unless --async asks for them */
	if (o->v8_self && !async_given)
		o->async = false;
	const char *conflict = options_conflict(o);
	if (conflict)
		return refuse(why, "%s", conflict);
	if (o->core)
		o->mode = MODE_CORE;
	plan->action = action_of(o);
	plan->sampler = sampler_of(o);
	return true;
}
