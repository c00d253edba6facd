/* options.h — v8walk's command line. */
#ifndef V8WALK_OPTIONS_H
#define V8WALK_OPTIONS_H

#include <signal.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../profile/writers.h"
#include "../ptrace/switch_copy.h"
#include "../util/strbuf.h"
#include "export_options.h"
#include "../v8/version.h"

enum run_mode { MODE_RECORD, MODE_DUMP, MODE_CORE };
/* how samples are taken: --mode */
enum sampler_kind {
	SAMPLER_AUTO,   /* ptrace, or eBPF where ptrace cannot be used */
	SAMPLER_PTRACE, /* stop each thread briefly (ptrace/tracer.c) */
	SAMPLER_BPF,    /* a kernel program copies each sample's stack (bpf/) */
};

enum { MAX_PIDS = 256, MAX_MORE_OUTPUTS = 8 };
/* --stalls' default rate: a stall of tens of ms still gets tens of samples */
#define STALLS_RATE_HZ 997.0

struct options {
	pid_t pid;               /* the first --pid (0 = none) */
	const char *core;        /* --core FILE */
	const char *exe;         /* --exe PATH: the executable that wrote the core */
	pid_t pids[MAX_PIDS];    /* every --pid */
	size_t npids;
	bool all_node;           /* --all-node: every node process on the host */
	char **command;          /* launch mode: the program and its arguments (after --), or NULL */
	enum sampler_kind sampler;
	bool kernel;             /* --kernel: kernel frames (eBPF) */
	bool on_cpu;             /* --on-cpu: eBPF samples threads on a CPU only, not their waits */
	double stalls_ms;        /* --stalls: report loop iterations this long, sample only them
				  * (0: off) */
	bool keep_root;          /* --keep-root: launch mode under sudo runs the program as root */
	sigset_t given_sigmask;  /* the signal mask v8walk was started with (a launched program's) */
	struct rlimit given_nofile; /* its descriptor limit, before it raised its own (ditto) */
	enum run_mode mode;
	const struct profile_writer *writer; /* --format, --text, --raw or -o's extension */
	const char *thread;      /* --thread TID|NAME (cpuprofile) */
	bool json;               /* --json (dumps) */
	const char *output;      /* -o FILE (NULL = stdout) */
	bool output_stdout;      /* -o - was given: the profile goes to stdout (output stays NULL) */
	/* further -o FILEs: the same profile again, each in the format of its extension */
	const char *more_outputs[MAX_MORE_OUTPUTS];
	const struct profile_writer *more_writers[MAX_MORE_OUTPUTS];
	size_t nmore;
	double rate_hz;
	bool rate_set;           /* --rate was given */
	double duration_s;       /* 0 = until Ctrl-C */
	double period_s;         /* --period: one profile per SEC (0 = one for the run) */
	bool top;                /* `v8walk top` / --top: the live view */
	double interval_s;       /* --interval: top's refresh (default 1) */
	bool idle;
	bool function_lines;     /* --function: aggregate by function definition line */
	bool no_lines;           /* --nolineno */
	bool full_native_names;  /* --full-names: C++ parameter lists */
	bool v8_self;            /* --v8-self: charge a pc in optimized code as V8's profiler does */
	double min_percent;      /* --text threshold */
	bool version_info;
	bool have_force_version;
	struct v8_version force_version;
	unsigned stack_kb;
	bool stack_kb_set;       /* --stack-kb was given */
	unsigned stop_limit_us;  /* --stop-limit-us (0: no limit) */
	enum stack_copy_mode stack_copy; /* --stack-copy */
	bool format_set;         /* --format, --text or --raw was given */
	bool quiet;
	bool no_source_maps;     /* --no-source-maps: JS frames at their generated position */
	bool async;              /* --async / --no-async: stacks resumed from the microtask queue
				  * continue through the async functions awaiting them */
	bool pending;            /* --pending (--dump, --core): every suspended async function in
				  * the heap, grouped by what awaits it */
	struct export_options export; /* --export and its options */
	struct ch_export *exporter;   /* the running exporter (main sets it; NULL = none) */
	const struct profile *svg_baseline; /* report --diff-since: a differential SVG against it */
};

/* Options that cannot go together, and the target that must be named: NULL when `o` (as parsed,
 * before --core sets MODE_CORE) is a valid combination, or the one-line reason it is not. */
const char *options_conflict(const struct options *o);

/* What the command line asks v8walk to do. */
enum action {
	ACTION_PROFILE,      /* sample, then write the profile (-o, --period, --export) */
	ACTION_TOP,          /* sample and show the live view */
	ACTION_DUMP,         /* every thread's stack of a running process, once */
	ACTION_CORE,         /* every thread's stack in a core file (or --version-info for it) */
	ACTION_VERSION_INFO, /* what v8walk detects in a running process */
	ACTION_HELP,         /* print_usage on stdout */
	ACTION_VERSION,      /* v8walk's version on stdout */
};

/* The command line resolved: the action, the sampler that runs first, the writer (o.writer) and
 * every option as given. */
struct plan {
	enum action action;
	/* ACTION_PROFILE and ACTION_TOP: SAMPLER_PTRACE or SAMPLER_BPF; with o.sampler ==
	 * SAMPLER_AUTO, a ptrace attach that is refused hands over to eBPF */
	enum sampler_kind sampler;
	struct options o;
};

/* Parse argv into *plan: true, or false with the one-line reason (escaped text, without the
 * "v8walk: " prefix) in *why — the caller prints it and exits EXIT_USAGE. Prints nothing. */
bool parse_options(int argc, char **argv, struct plan *plan, struct strbuf *why);
/* One -o value into o: the first is the profile's file ("-": stdout, in --format's format), each
 * further one another file in the format its extension names. False with the reason in *why. */
bool options_add_output(struct options *o, const char *arg, struct strbuf *why);
/* The --help text. */
void print_usage(FILE *f);

#endif
