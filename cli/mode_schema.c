/* mode_schema.c — `v8walk schema [--cluster NAME] [--database DB] [--table T] [--ttl-days N]`: the DDL of the
 * ClickHouse tables --export writes and report reads (export/ch_schema.h), for a DBA to run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../export/ch_schema.h"
#include "../export/ch_url.h"
#include "../util/text_escape.h"
#include "modes.h"

static void schema_usage(FILE *f)
{
	fprintf(f, "usage: v8walk schema [--cluster NAME] [--database DB] [--table PREFIX] [--ttl-days N]\n"
		   "print the CREATE DATABASE and CREATE TABLE statements of v8walk's ClickHouse tables (PREFIX_stacks,\n"
		   "PREFIX_samples; default database `default`, prefix `v8walk`); with --cluster, local\n"
		   "tables ON CLUSTER and Distributed tables over them; with --ttl-days, samples expire\n"
		   "N days after their period (a TTL: ClickHouse 19.6 and later)\n");
}

int mode_schema(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"cluster", required_argument, NULL, 'c'},
	    {"database", required_argument, NULL, 'D'},
	    {"table", required_argument, NULL, 't'},
	    {"ttl-days", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *cluster = NULL, *database = "default", *table = "v8walk";
	unsigned ttl_days = 0;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const char *what = c == 'c' ? "--cluster" : c == 'D' ? "--database" : "--table";
		switch (c) {
		case 'T': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 36500) {
				fprintf_text(stderr, "v8walk schema: --ttl-days needs a number of days from 1 to "
					     "36500, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			ttl_days = (unsigned)v;
			break;
		}
		case 'c':
		case 'D':
		case 't':
			if (!ch_name_ok(optarg, strlen(optarg))) {
				fprintf_text(stderr, "v8walk schema: %s must be letters, digits and '_' "
					     "(at most 63), not '%s'\n", what, optarg);
				return EXIT_USAGE;
			}
			*(c == 'c' ? &cluster : c == 'D' ? &database : &table) = optarg;
			break;
		case 'h':
			schema_usage(stdout);
			return EXIT_OK;
		case ':':
			fprintf_text(stderr, "v8walk schema: %s needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf_text(stderr, "v8walk schema: unknown option '%s'\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf_text(stderr, "v8walk schema: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	struct strbuf ddl;
	sb_init(&ddl);
	ch_schema_text(database, table, cluster, ttl_days, &ddl);
	fputs(ddl.s, stdout);
	sb_free(&ddl);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_ERROR;
}
