/* ch_export.h — the agent's side of --export: each period's aggregation becomes rows
 * (period_rows.h) on the sampler's thread, and a sender thread of its own inserts them (gzip'd
 * RowBinary over HTTP, stacks first and only those this agent has not sent yet, samples after),
 * retrying with backoff. While ClickHouse cannot be reached the periods go to the spool
 * (spool.h), which is drained oldest first once it answers again. The sampler never waits for
 * the network: a full queue drops its oldest period (counted). */
#ifndef V8WALK_CH_EXPORT_H
#define V8WALK_CH_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../profile/profile.h"
#include "ch_http.h"
#include "../profile/stall_tracker.h"
#include "period_rows.h"

struct ch_export_config {
	struct ch_url url;
	struct ch_credentials cred;
	const char *spool_dir;       /* NULL: spool_default_dir */
	uint64_t spool_max_bytes;
	bool create_schema;
	bool status_lines;           /* a line on stderr per period */
	const char *service_spec;    /* --label service=…: NULL, "auto" or a name */
	struct export_label labels[EXPORT_LABELS_MAX]; /* the other labels */
	size_t nlabels;
	double rate_hz;
	bool stalls;                 /* --stalls: stall rows go to PREFIX_stalls too */
};

struct ch_export_stats {
	unsigned long periods;   /* handed to the exporter */
	unsigned long sent;      /* delivered (directly or from the spool) */
	unsigned long spooled;   /* written to the spool */
	unsigned long drained;   /* of those, delivered later */
	unsigned long dropped;   /* lost: removed over the spool's limit, or the queue was full */
	unsigned long pending;   /* still in the spool at the end */
	uint64_t rows;           /* sample rows of every period */
	uint64_t bytes;          /* compressed bytes delivered */
	double insert_ms_max, insert_ms_sum;
	unsigned long inserts;
};

struct ch_export;

/* Open the spool, check the server and the tables (creating them with create_schema) and start
 * the sender. NULL with one line in why when the server answers but cannot be used (credentials,
 * tables of another shape) or the spool cannot be had. A server that cannot be reached is not
 * fatal: one line on stderr says so, the periods are spooled, and the checks are made when it
 * answers (ch_conn.unreachable tells the two apart). */
struct ch_export *ch_export_open(const struct ch_export_config *cfg, struct strbuf *why);
/* One period's aggregation, which began at `bucket`: its rows are queued for the sender. */
void ch_export_period(struct ch_export *ex, const struct profile *p, time_t bucket,
		      const char *note);
/* A stall that ended (began at start_unix_ms): its row goes with the next period. Sampler
 * thread. */
void ch_export_stall(struct ch_export *ex, const struct intern *strings, const struct stall_report *r,
		     int64_t start_unix_ms);
/* Send what is queued (and the spool, if the server answers), stop the sender and free; the
 * figures in *st. */
void ch_export_close(struct ch_export *ex, struct ch_export_stats *st);
/* The end-of-run line. */
void ch_export_print_summary(FILE *f, const struct ch_url *u, const struct ch_export_stats *st);

#endif
