/* ch_schema.c — the DDL of v8walk's tables (ch_schema.h). */
#include "ch_schema.h"

#include <stdio.h>
#include <string.h>

static const struct ch_column samples_columns[] = {
    {"bucket", "DateTime"},       {"host", "String"},           {"service", "String"},
    {"labels.key", "Array(String)"}, {"labels.value", "Array(String)"}, {"pid", "UInt32"},
    {"tid", "UInt32"},            {"process", "String"},        {"thread", "String"},
    {"stack_hash", "UInt64"},     {"count", "UInt64"},          {"cpu_ns", "UInt64"},
};
static const struct ch_column stacks_columns[] = {
    {"stack_hash", "UInt64"},
    {"frames", "Array(String)"},
};
static const struct ch_column stalls_columns[] = {
    {"time", "DateTime"},         {"start_ms", "UInt64"},       {"host", "String"},
    {"service", "String"},
    {"labels.key", "Array(String)"}, {"labels.value", "Array(String)"}, {"pid", "UInt32"},
    {"tid", "UInt32"},            {"process", "String"},        {"thread", "String"},
    {"duration_ms", "Float64"},   {"began_before", "UInt8"},    {"unfinished", "UInt8"},
    {"samples", "UInt32"},        {"js", "UInt32"},             {"gc", "UInt32"},
    {"native", "UInt32"},         {"builtin", "UInt32"},        {"native_frame", "String"},
    {"builtin_frame", "String"},  {"frames", "Array(String)"},  {"stack_hashes", "Array(UInt64)"},
    {"stack_counts", "Array(UInt64)"},
};
#define TABLE(name, cols) {name, cols, sizeof(cols) / sizeof(cols[0])}
const struct ch_table ch_stacks_table = TABLE("stacks", stacks_columns);
const struct ch_table ch_samples_table = TABLE("samples", samples_columns);
const struct ch_table ch_stalls_table = TABLE("stalls", stalls_columns);

static const char samples_engine[] =
	"ENGINE = MergeTree PARTITION BY toDate(bucket) ORDER BY (service, bucket, host, stack_hash)";
static const char stacks_engine[] = "ENGINE = ReplacingMergeTree ORDER BY stack_hash";
static const char stalls_engine[] =
	"ENGINE = MergeTree PARTITION BY toDate(time) ORDER BY (service, time, host)";

/* A table's column list as CREATE TABLE writes it, from the columns the checks expect: one line
 * each, the labels.key / labels.value pair as its Nested column. */
static void table_body(const struct ch_table *t, struct strbuf *out)
{
	sb_add(out, " (\n");
	for (size_t i = 0; i < t->ncolumns; i++) {
		const struct ch_column *c = &t->columns[i];
		if (!strcmp(c->name, "labels.value"))
			continue;
		if (!strcmp(c->name, "labels.key"))
			sb_add(out, "    labels Nested(key String, value String)");
		else
			sb_printf(out, "    %s %s", c->name, c->type);
		sb_add(out, i + 1 < t->ncolumns ? ",\n" : "\n");
	}
	sb_add(out, ")");
}

/* CREATE TABLE for one table: local (MergeTree, with `ttl` after its engine when not NULL) and,
 * with a cluster, its Distributed twin. */
static size_t table_statements(const char *db, const char *prefix, const struct ch_table *t,
			       const char *engine, const char *ttl, const char *shard_key,
			       const char *cluster, struct strbuf *out)
{
	const char *what = t->suffix;
	sb_init(&out[0]);
	sb_printf(&out[0], "CREATE TABLE IF NOT EXISTS %s.%s%s_%s", db, prefix, cluster ? "_local" : "",
		  what);
	if (cluster)
		sb_printf(&out[0], " ON CLUSTER %s", cluster);
	table_body(t, &out[0]);
	sb_printf(&out[0], "\n%s", engine);
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
	char ttl[64], stalls_ttl[64];
	snprintf(ttl, sizeof(ttl), "TTL bucket + INTERVAL %u DAY", ttl_days);
	snprintf(stalls_ttl, sizeof(stalls_ttl), "TTL time + INTERVAL %u DAY", ttl_days);
	sb_init(&out[0]);
	sb_printf(&out[0], "CREATE DATABASE IF NOT EXISTS %s", database);
	if (cluster)
		sb_printf(&out[0], " ON CLUSTER %s", cluster);
	size_t n = 1;
	n += table_statements(database, prefix, &ch_stacks_table, stacks_engine, NULL,
			      "stack_hash", cluster, out + n);
	n += table_statements(database, prefix, &ch_samples_table, samples_engine,
			      ttl_days ? ttl : NULL, "cityHash64(host)", cluster, out + n);
	n += table_statements(database, prefix, &ch_stalls_table, stalls_engine,
			      ttl_days ? stalls_ttl : NULL, "cityHash64(host)", cluster, out + n);
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
