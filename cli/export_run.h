/* export_run.h — --export around a sampling run: the exporter is started (server, credentials
 * and tables checked) before sampling begins and closed after it, with its summary line and
 * exit status. */
#ifndef V8WALK_EXPORT_RUN_H
#define V8WALK_EXPORT_RUN_H

#include "options.h"

/* Start the exporter into o->exporter when --export was given; false after one line on stderr. */
bool export_run_start(struct options *o);
/* Close it (sending what is queued), print the summary unless --quiet; returns `rc`, or
 * EXIT_EXPORT_INCOMPLETE when rc is EXIT_OK and periods were dropped or wait in the spool. */
int export_run_finish(struct options *o, int rc);

#endif
