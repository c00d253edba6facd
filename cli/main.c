/* main.c — v8walk's entry point: the `schema` and `report` subcommands, or the command line
 * resolved to a plan (options.h) and its action run (a sampling run with --export around it). */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "export_run.h"
#include "modes.h"
#include "options.h"
#include "../util/version.h"

/* A sampled thread holds up to four descriptors (its stat and schedstat files, its stack-copy
 * and context-switch events): at the usual soft limit of 1,024 the opens fail past ~250 threads.
 * The soft limit goes up to the hard one (a launched program gets back the one given). */
static void raise_nofile(const struct rlimit *given)
{
	if (given->rlim_cur == RLIM_INFINITY || given->rlim_cur >= given->rlim_max)
		return;
	struct rlimit raised = {.rlim_cur = given->rlim_max, .rlim_max = given->rlim_max};
	setrlimit(RLIMIT_NOFILE, &raised); /* refused: the given limit stands, as before */
}

static int run_plan(const struct plan *p)
{
	switch (p->action) {
	case ACTION_HELP:
		print_usage(stdout);
		return EXIT_OK;
	case ACTION_VERSION:
		printf("v8walk %s (%s)\n", v8walk_release, v8walk_commit);
		return EXIT_OK;
	case ACTION_CORE:
		return mode_core(&p->o);
	case ACTION_VERSION_INFO:
		return mode_version_info(&p->o);
	case ACTION_DUMP:
		return mode_dump(&p->o);
	case ACTION_PROFILE:
	case ACTION_TOP:
		break;
	}
	/* precise wake-ups for the sampling timer */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	raise_nofile(&p->o.given_nofile);
	struct options o = p->o; /* export_run_start hands the exporter to the run through it */
	if (!export_run_start(&o))
		return EXIT_ERROR;
	int rc = p->sampler == SAMPLER_BPF ? mode_bpf(&o, NULL, false) : mode_record(&o);
	return export_run_finish(&o, rc);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "schema"))
		return mode_schema(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return mode_report(argc - 1, argv + 1);
	struct plan p;
	struct strbuf why;
	sb_init(&why);
	if (!parse_options(argc, argv, &p, &why)) {
		fprintf(stderr, "v8walk: %s\n", why.s);
		sb_free(&why);
		return EXIT_USAGE;
	}
	sb_free(&why);
	return run_plan(&p);
}
