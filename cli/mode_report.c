/* mode_report.c — `v8walk report --from URL --where KEY=VALUE… --since T [--until T] -o FILE`:
 * one profile of a fleet read back from ClickHouse (export/ch_report.h), aggregated there, and
 * written by the same writers and output code as a sampled profile; with --stalls, the profile of
 * the event loops' stalls (--stalls when sampling) and a list of the longest. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../export/ch_check.h"
#include "../export/ch_report.h"
#include "../export/ch_sql.h"
#include "../util/text_escape.h"
#include "modes.h"

struct report_args {
	struct ch_url url;
	const char *credentials;
	struct strbuf where;      /* " AND …" conditions */
	struct strbuf label;      /* the root's name: the filters, or "fleet" */
	int64_t since, until;
	bool diff;                /* --diff-since A..B: a differential SVG against that range */
	bool stalls;              /* --stalls: the stalls table's samples, and the longest listed */
	int64_t base_since, base_until;
	struct options out;       /* -o, --format, --text, --raw, --min-percent */
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: v8walk report --from URL [--where KEY=VALUE]... [--since T] [--until T]\n"
		"                     [-o FILE]... [-f FORMAT | --text | --raw]\n"
		"read the samples --export stored back from ClickHouse (summed there per stack) and\n"
		"write them as one profile in any of v8walk's formats\n"
		"  --from URL           clickhouse://HOST[:PORT]/DB[.TABLE] (clickhouses://, https:// TLS)\n"
		"  --where KEY=VALUE    service, host, process, thread, pid, tid or a --label key (repeat:\n"
		"                       all must hold)\n"
		"  --since T, --until T a duration back from now (90s, 30m, 2h, 7d), @UNIX_SECONDS or a\n"
		"                       UTC date YYYY-MM-DD[ HH:MM[:SS]]; default the last hour, until now\n"
		"  --diff-since A..B    a differential flame graph (SVG): widths from --since/--until,\n"
		"                       red where a frame's share grew against A..B, blue where it shrank\n"
		"  --stalls             the event loops' stalls (sampled with --stalls): their samples\n"
		"                       as the profile, and the longest listed on stderr\n"
		"  --export-credentials FILE  USER:PASSWORD (or V8WALK_CLICKHOUSE_USER/_PASSWORD)\n"
		"  -o FILE, -f FORMAT, --text, --raw, --min-percent P  as when sampling\n");
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf_text(stderr, "v8walk report: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE;
}

/* Parse argv into *a; returns -1 to go on, else the exit code. */
static int parse_report(int argc, char **argv, struct report_args *a)
{
	enum { R_FROM = 256, R_WHERE, R_SINCE, R_UNTIL, R_CRED, R_TEXT, R_RAW, R_MINPCT, R_DIFF,
	       R_STALLS };
	static const struct option longopts[] = {
	    {"from", required_argument, NULL, R_FROM},   {"where", required_argument, NULL, R_WHERE},
	    {"since", required_argument, NULL, R_SINCE}, {"until", required_argument, NULL, R_UNTIL},
	    {"diff-since", required_argument, NULL, R_DIFF},
	    {"stalls", no_argument, NULL, R_STALLS},
	    {"export-credentials", required_argument, NULL, R_CRED},
	    {"output", required_argument, NULL, 'o'},    {"format", required_argument, NULL, 'f'},
	    {"text", no_argument, NULL, R_TEXT},         {"raw", no_argument, NULL, R_RAW},
	    {"min-percent", required_argument, NULL, R_MINPCT},
	    {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int64_t now = (int64_t)time(NULL);
	a->since = now - 3600;
	a->until = now + 1;
	a->out.min_percent = 0.5;
	bool have_from = false;
	struct strbuf why;
	sb_init(&why);
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:f:qh", longopts, NULL)) != -1) {
		char msg[256];
		switch (c) {
		case R_FROM:
			if (!ch_url_parse(optarg, &a->url, msg, sizeof(msg)))
				return usage_error("--from:", msg);
			have_from = true;
			break;
		case R_WHERE:
			if (!ch_where_condition(&a->where, optarg, &why)) {
				int rc = usage_error(why.s, NULL);
				sb_free(&why);
				return rc;
			}
			sb_printf(&a->label, "%s%s", a->label.len ? " " : "", optarg);
			break;
		case R_SINCE:
		case R_UNTIL:
			if (!ch_parse_time(optarg, now, c == R_SINCE ? &a->since : &a->until))
				return usage_error(c == R_SINCE ? "--since needs a duration (2h), @SECONDS or "
					"a date, not" : "--until needs a duration (1h), @SECONDS, now or a "
					"date, not", optarg);
			break;
		case R_DIFF: {
			const char *dots = strstr(optarg, "..");
			char first[64];
			if (!dots || (size_t)(dots - optarg) >= sizeof(first))
				return usage_error("--diff-since needs A..B (e.g. 4h..2h), not", optarg);
			memcpy(first, optarg, (size_t)(dots - optarg));
			first[dots - optarg] = 0;
			if (!ch_parse_time(first, now, &a->base_since) ||
			    !ch_parse_time(dots + 2, now, &a->base_until) || a->base_since >= a->base_until)
				return usage_error("--diff-since needs A..B, two times with A before B (e.g. "
						   "4h..2h), not", optarg);
			a->diff = true;
			break;
		}
		case R_CRED: a->credentials = optarg; break;
		case R_STALLS: a->stalls = true; break;
		case 'o':
			if (!options_add_output(&a->out, optarg, &why)) {
				int rc = usage_error(why.s, NULL);
				sb_free(&why);
				return rc;
			}
			break;
		case 'f':
			if (!(a->out.writer = profile_writer_named(optarg)))
				return usage_error("--format: no such format:", optarg);
			break;
		case R_TEXT: a->out.writer = profile_writer_named("tree"); break;
		case R_RAW: a->out.writer = profile_writer_named("folded"); break;
		case R_MINPCT:
			if (sscanf(optarg, "%lf", &a->out.min_percent) != 1)
				return usage_error("--min-percent needs a number, not", optarg);
			break;
		case 'q': a->out.quiet = true; break;
		case 'h': report_usage(stdout); return EXIT_OK;
		case ':': return usage_error("this option needs a value:", argv[optind - 1]);
		default: return usage_error("unknown option", argv[optind - 1]);
		}
	}
	sb_free(&why);
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!have_from)
		return usage_error("which ClickHouse? give --from clickhouse://HOST:PORT/DB", NULL);
	if (a->since >= a->until)
		return usage_error("--since must be before --until", NULL);
	if (!a->out.writer && a->out.output &&
	    !(a->out.writer = profile_writer_for_path(a->out.output)))
		return usage_error("-o: which format? its extension names none:", a->out.output);
	if (!a->out.writer)
		a->out.writer = profile_writer_named("tree");
	if (a->diff && (strcmp(a->out.writer->name, "svg") != 0 || a->out.nmore))
		return usage_error("--diff-since draws a differential flame graph: give -o FILE.svg "
				   "(or --format svg) only", NULL);
	return -1;
}

enum { STALLS_LISTED = 10 };

/* --stalls: the longest stalls of the filter, one line each on stderr. */
static bool list_stalls(struct ch_conn *conn, const struct report_args *a, const char *where,
			struct strbuf *why)
{
	struct stall_row rows[STALLS_LISTED];
	size_t n;
	uint64_t total;
	if (!ch_report_slowest_stalls(conn, where, a->since, a->until, rows, STALLS_LISTED, &n, &total,
				      why))
		return false;
	if (a->out.quiet)
		return true;
	fprintf(stderr, "v8walk report: %llu stalls; the longest %zu:\n", (unsigned long long)total, n);
	static const char *const titles[4] = {"JS", "GC", "native", "builtin"};
	for (size_t i = 0; i < n; i++) {
		const struct stall_row *r = &rows[i];
		time_t sec = (time_t)(r->start_ms / 1000);
		struct tm tm;
		char at[32];
		gmtime_r(&sec, &tm);
		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", &tm);
		struct strbuf line;
		sb_init(&line);
		sb_printf(&line, "  %.1f ms at %s.%03dZ on %s, %s (%u):", r->duration_ms, at,
			  (int)(r->start_ms % 1000), r->host, r->service, r->pid);
		for (int k = 0; k < 4; k++)
			if (r->classes[k] && r->samples)
				sb_printf(&line, " %s %.0f%%", titles[k],
					  100.0 * r->classes[k] / r->samples);
		if (r->frames[0])
			sb_printf(&line, ": %s", r->frames);
		fprintf_text(stderr, "%s\n", line.s);
		sb_free(&line);
	}
	return true;
}

int mode_report(int argc, char **argv)
{
	struct report_args a;
	memset(&a, 0, sizeof(a));
	sb_init(&a.where);
	sb_init(&a.label);
	int rc = parse_report(argc, argv, &a);
	if (rc >= 0) {
		sb_free(&a.where);
		sb_free(&a.label);
		return rc;
	}
	struct strbuf why;
	sb_init(&why);
	struct ch_credentials cred;
	struct ch_conn conn;
	struct intern strings;
	intern_init(&strings);
	struct profile prof;
	profile_init(&prof, &strings, LINES_CURRENT);
	struct profile base;
	profile_init(&base, &strings, LINES_CURRENT);
	/* weighted stacks without time order: memory goes with the distinct stacks */
	profile_untimed(&prof);
	profile_untimed(&base);
	struct report_figures fig, base_fig;
	const char *where = a.where.s ? a.where.s : "", *root = a.label.len ? a.label.s : "fleet";
	enum report_source src = a.stalls ? REPORT_STALLS : REPORT_SAMPLES;
	rc = EXIT_ERROR;
	if (ch_credentials_load(a.credentials, &cred, &why) && ch_conn_init(&conn, &a.url, &cred)) {
		if (ch_check_tables(&conn, a.stalls, &why) &&
		    ch_report_fetch(&conn, src, where, a.since, a.until, root, &prof, &fig, &why) &&
		    (!a.diff || ch_report_fetch(&conn, src, where, a.base_since, a.base_until, root,
						&base, &base_fig, &why)) &&
		    (!a.stalls || list_stalls(&conn, &a, where, &why))) {
			if (a.diff)
				a.out.svg_baseline = &base;
			struct strbuf target;
			sb_init(&target);
			sb_printf(&target, "%s%s.%s %s", a.url.base, a.url.database, a.url.table,
				  a.label.len ? a.label.s : "");
			snprintf(prof.meta.target, sizeof(prof.meta.target), "%.*s",
				 (int)(sizeof(prof.meta.target) - 1), target.s);
			sb_free(&target);
			rc = write_profile(&a.out, &prof);
			if (!a.out.quiet)
				fprintf(stderr, "v8walk report: %llu samples in %zu distinct stacks (%zu "
					"without frames) from %s in %.1f ms\n",
					(unsigned long long)fig.samples, fig.stacks, fig.missing_frames,
					a.url.base, fig.query_ms);
		}
		ch_conn_free(&conn);
	}
	if (rc == EXIT_ERROR && why.len)
		fprintf_text(stderr, "v8walk report: %s\n", why.s);
	profile_free(&prof);
	profile_free(&base);
	intern_free(&strings);
	sb_free(&why);
	sb_free(&a.where);
	sb_free(&a.label);
	return rc;
}
