/* export_options.h — the options of --export (fleet profiling into ClickHouse): the address,
 * the labels, where credentials come from, the spool; parsed here so that options.c only hands
 * them on. The exporter itself is export/ch_export.h. */
#ifndef V8WALK_EXPORT_OPTIONS_H
#define V8WALK_EXPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../export/ch_url.h"
#include "../export/period_rows.h"
#include "../util/strbuf.h"

/* the option ids options.c gives getopt_long for them */
enum export_option_id {
	XO_EXPORT = 512,   /* --export URL */
	XO_LABEL,          /* --label KEY=VALUE */
	XO_CREDENTIALS,    /* --export-credentials FILE */
	XO_SPOOL,          /* --spool DIR */
	XO_SPOOL_MAX_MB,   /* --spool-max-mb N */
	XO_CREATE_SCHEMA,  /* --create-schema */
};

enum { EXPORT_LABEL_KEY_MAX = 64 };

struct export_options {
	const char *url_text;        /* --export (NULL = no export) */
	struct ch_url url;
	const char *credentials;     /* --export-credentials FILE */
	const char *spool_dir;       /* --spool DIR (NULL: the default) */
	double spool_max_mb;         /* default 256 */
	bool create_schema;
	const char *service;         /* --label service=… */
	struct export_label labels[EXPORT_LABELS_MAX]; /* keys point into label_keys */
	char label_keys[EXPORT_LABELS_MAX][EXPORT_LABEL_KEY_MAX + 1];
	size_t nlabels;
	bool any_label;              /* some --label was given */
};

/* Handle one of the options above; false with the reason the value is wrong appended to *why
 * (escaped: it may quote the argument). */
bool export_option(int id, const char *arg, struct export_options *x, struct strbuf *why);
/* A conflict between the export options themselves, or NULL. */
const char *export_options_conflict(const struct export_options *x);

#endif
