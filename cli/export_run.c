/* export_run.c — starting and closing the exporter around a run (export_run.h). */
#include "export_run.h"

#include <stdio.h>

#include "../export/ch_export.h"
#include "../util/text_escape.h"
#include "exit_codes.h"

enum { DEFAULT_SPOOL_MB = 256 };

bool export_run_start(struct options *o)
{
	const struct export_options *x = &o->export;
	if (!x->url_text)
		return true;
	struct ch_export_config cfg = {.url = x->url, .spool_dir = x->spool_dir,
				       .create_schema = x->create_schema,
				       .status_lines = o->period_s > 0 && !o->quiet,
				       .service_spec = x->service, .nlabels = x->nlabels,
				       .rate_hz = o->rate_hz, .stalls = o->stalls_ms > 0};
	double mb = x->spool_max_mb > 0 ? x->spool_max_mb : DEFAULT_SPOOL_MB;
	cfg.spool_max_bytes = (uint64_t)(mb * 1024 * 1024);
	for (size_t i = 0; i < x->nlabels; i++)
		cfg.labels[i] = x->labels[i];
	struct strbuf why;
	sb_init(&why);
	bool ok = ch_credentials_load(x->credentials, &cfg.cred, &why) &&
		  (o->exporter = ch_export_open(&cfg, &why)) != NULL;
	if (!ok)
		fprintf_text(stderr, "v8walk: --export: %s\n", why.s);
	sb_free(&why);
	return ok;
}

int export_run_finish(struct options *o, int rc)
{
	if (!o->exporter)
		return rc;
	struct ch_export_stats st;
	ch_export_close(o->exporter, &st);
	o->exporter = NULL;
	if (!o->quiet)
		ch_export_print_summary(stderr, &o->export.url, &st);
	if (rc == EXIT_OK && (st.dropped || st.pending))
		return EXIT_EXPORT_INCOMPLETE;
	return rc;
}
