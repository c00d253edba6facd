/* mode_schema.c — `v8walk schema [--cluster NAME] [--database DB] [--table T]`: the DDL of the
 * ClickHouse tables --export writes and report reads (export/ch_schema.h), for a DBA to run. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../export/ch_schema.h"
#include "../export/ch_url.h"
#include "../util/text_escape.h"
#include "modes.h"

static void schema_usage(FILE *f)
{
	fprintf(f, "usage: v8walk schema [--cluster NAME] [--database DB] [--table PREFIX]\n"
		   "print the CREATE TABLE statements of v8walk's ClickHouse tables (PREFIX_stacks,\n"
		   "PREFIX_samples; default database `default`, prefix `v8walk`); with --cluster, local\n"
		   "tables ON CLUSTER and Distributed tables over them\n");
}

int mode_schema(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"cluster", required_argument, NULL, 'c'},
	    {"database", required_argument, NULL, 'D'},
	    {"table", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *cluster = NULL, *database = "default", *table = "v8walk";
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const char *what = c == 'c' ? "--cluster" : c == 'D' ? "--database" : "--table";
		switch (c) {
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
	ch_schema_text(database, table, cluster, &ddl);
	fputs(ddl.s, stdout);
	sb_free(&ddl);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_ERROR;
}
