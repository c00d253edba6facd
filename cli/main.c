/* main.c — v8walk's entry point: parse the command line and run the chosen mode. */
#include <stdio.h>
#include <sys/prctl.h>

#include "modes.h"
#include "options.h"

int main(int argc, char **argv)
{
	struct options o;
	int code;
	if (!parse_options(argc, argv, &o, &code))
		return code;
	/* precise wake-ups for the sampling timer */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (o.mode == MODE_CORE)
		return mode_core(&o);
	if (o.version_info)
		return mode_version_info(&o);
	if (o.mode == MODE_DUMP)
		return mode_dump(&o);
	return mode_record(&o);
}
