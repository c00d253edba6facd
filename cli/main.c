/* main.c — v8walk's entry point: the `schema` and `report` subcommands, or parse the command
 * line and run the chosen mode (with --export around it). */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "export_run.h"
#include "modes.h"
#include "options.h"

static int run_mode(const struct options *o)
{
	if (o->mode == MODE_CORE)
		return mode_core(o);
	if (o->version_info)
		return mode_version_info(o);
	if (o->mode == MODE_DUMP)
		return mode_dump(o);
	/* eBPF when asked for, or when only it can: several processes, kernel frames */
	if (o->sampler == SAMPLER_BPF || o->npids > 1 || o->all_node || o->kernel)
		return mode_bpf(o, NULL);
	return mode_record(o);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "schema"))
		return mode_schema(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return mode_report(argc - 1, argv + 1);
	struct options o;
	int code;
	if (!parse_options(argc, argv, &o, &code))
		return code;
	/* precise wake-ups for the sampling timer */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!export_run_start(&o))
		return EXIT_ERROR;
	return export_run_finish(&o, run_mode(&o));
}
