/* ch_schema.c — the DDL of v8walk's tables (ch_schema.h). */
#include "ch_schema.h"

#include <stdio.h>

const struct ch_column ch_samples_columns[] = {
    {"bucket", "DateTime"},       {"host", "String"},           {"service", "String"},
    {"labels.key", "Array(String)"}, {"labels.value", "Array(String)"}, {"pid", "UInt32"},
    {"tid", "UInt32"},            {"process", "String"},        {"thread", "String"},
    {"stack_hash", "UInt64"},     {"count", "UInt64"},          {"cpu_ns", "UInt64"},
};
const size_t ch_samples_ncolumns = sizeof(ch_samples_columns) / sizeof(ch_samples_columns[0]);
const struct ch_column ch_stacks_columns[] = {
    {"stack_hash", "UInt64"},
    {"frames", "Array(String)"},
};
const size_t ch_stacks_ncolumns = sizeof(ch_stacks_columns) / sizeof(ch_stacks_columns[0]);

static const char samples_body[] =
	" (\n"
	"    bucket DateTime,\n"
	"    host String,\n"
	"    service String,\n"
	"    labels Nested(key String, value String),\n"
	"    pid UInt32,\n"
	"    tid UInt32,\n"
	"    process String,\n"
	"    thread String,\n"
	"    stack_hash UInt64,\n"
	"    count UInt64,\n"
	"    cpu_ns UInt64\n"
	")";
static const char samples_engine[] =
	"ENGINE = MergeTree PARTITION BY toDate(bucket) ORDER BY (service, bucket, host, stack_hash)";
static const char stacks_body[] =
	" (\n"
	"    stack_hash UInt64,\n"
	"    frames Array(String)\n"
	")";
static const char stacks_engine[] = "ENGINE = ReplacingMergeTree ORDER BY stack_hash";

/* CREATE TABLE for one table: local (MergeTree, with `ttl` after its engine when not NULL) and,
 * with a cluster, its Distributed twin. */
static size_t table_statements(const char *db, const char *prefix, const char *what, const char *body,
			       const char *engine, const char *ttl, const char *shard_key,
			       const char *cluster, struct strbuf *out)
{
	sb_init(&out[0]);
	sb_printf(&out[0], "CREATE TABLE IF NOT EXISTS %s.%s%s_%s", db, prefix, cluster ? "_local" : "",
		  what);
	if (cluster)
		sb_printf(&out[0], " ON CLUSTER %s", cluster);
	sb_printf(&out[0], "%s\n%s", body, engine);
	if (ttl)
		sb_printf(&out[0], "\n%s", ttl);
	if (!cluster)
		return 1;
	sb_init(&out[1]);
	sb_printf(&out[1], "CREATE TABLE IF NOT EXISTS %s.%s_%s ON CLUSTER %s AS %s.%s_local_%s\n"
		  "ENGINE = Distributed(%s, %s, %s_local_%s, %s)", db, prefix, what, cluster, db, prefix,
		  what, cluster, db, prefix, what, shard_key);
	return 2;
}

size_t ch_schema_statements(const char *database, const char *prefix, const char *cluster,
			    unsigned ttl_days, struct strbuf out[CH_SCHEMA_MAX_STATEMENTS])
{
	char ttl[64];
	snprintf(ttl, sizeof(ttl), "TTL bucket + INTERVAL %u DAY", ttl_days);
	sb_init(&out[0]);
	sb_printf(&out[0], "CREATE DATABASE IF NOT EXISTS %s", database);
	if (cluster)
		sb_printf(&out[0], " ON CLUSTER %s", cluster);
	size_t n = 1;
	n += table_statements(database, prefix, "stacks", stacks_body, stacks_engine, NULL,
			      "stack_hash", cluster, out + n);
	n += table_statements(database, prefix, "samples", samples_body, samples_engine,
			      ttl_days ? ttl : NULL, "cityHash64(host)", cluster, out + n);
	return n;
}

void ch_schema_text(const char *database, const char *prefix, const char *cluster, unsigned ttl_days,
		    struct strbuf *out)
{
	sb_printf(out,
		  "-- v8walk's tables (v8walk schema). stack_hash = FNV-1a 64 of the folded stack\n"
		  "-- (frames outermost first, joined by ';').\n");
	if (ttl_days)
		sb_printf(out, "-- Samples older than %u days are dropped by ClickHouse (TTL: 19.6 and later;\n"
			  "-- a stack's row stays, a few hundred bytes each).\n", ttl_days);
	else
		sb_printf(out, "-- Retention: --ttl-days N adds a TTL (ClickHouse 19.6 and later); before\n"
			  "-- 19.6, drop old days with ALTER TABLE %s.%s%s_samples DROP PARTITION 'YYYY-MM-DD'.\n",
			  database, prefix, cluster ? "_local" : "");
	struct strbuf st[CH_SCHEMA_MAX_STATEMENTS];
	size_t n = ch_schema_statements(database, prefix, cluster, ttl_days, st);
	for (size_t i = 0; i < n; i++) {
		sb_printf(out, "\n%s;\n", st[i].s);
		sb_free(&st[i]);
	}
}
