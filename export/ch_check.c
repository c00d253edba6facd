/* ch_check.c — the server, the credentials and the tables' shape (ch_check.h). */
#include "ch_check.h"

#include <string.h>

#include "../util/text_escape.h"
#include "ch_schema.h"

bool ch_create_tables(struct ch_conn *c, const char *cluster, struct strbuf *why)
{
	struct strbuf st[CH_SCHEMA_MAX_STATEMENTS], answer;
	size_t n = ch_schema_statements(c->url.database, c->url.table, cluster, 0, st);
	sb_init(&answer);
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		if (ok && !ch_post(c, st[i].s, NULL, 0, false, &answer, why))
			ok = false;
		sb_free(&st[i]);
	}
	sb_free(&answer);
	return ok;
}

/* Does the answer hold the line `table\tname\ttype`? *named: a line with that table and name. */
static bool has_column(const char *answer, size_t len, const char *table, const struct ch_column *col,
		       bool *named)
{
	struct strbuf want;
	sb_init(&want);
	sb_printf(&want, "%s\t%s\t", table, col->name);
	bool found = false;
	*named = false;
	for (size_t i = 0; i < len && !found;) {
		const char *line = answer + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - line) : len - i;
		if (ll >= want.len && !memcmp(line, want.s, want.len)) {
			*named = true;
			found = ll - want.len == strlen(col->type) &&
				!memcmp(line + want.len, col->type, ll - want.len);
		}
		i += ll + 1;
	}
	sb_free(&want);
	return found;
}

bool ch_columns_match(const char *answer, size_t len, const char *table, const struct ch_table *t,
		      struct strbuf *why)
{
	const struct ch_column *cols = t->columns;
	size_t ncols = t->ncolumns;
	bool any = false;
	for (size_t i = 0; i < ncols; i++) {
		bool named;
		if (has_column(answer, len, table, &cols[i], &named)) {
			any = true;
			continue;
		}
		if (!any && i == 0 && !named && !memmem(answer, len, table, strlen(table)))
			sb_printf(why, "there is no table %s (create it with --create-schema, or "
				  "`v8walk schema | clickhouse-client --multiquery`)", table);
		else
			sb_printf(why, "table %s is not v8walk's: it has no column `%s %s` (see "
				  "`v8walk schema`)", table, cols[i].name, cols[i].type);
		return false;
	}
	return true;
}

bool ch_check_tables(struct ch_conn *c, bool stalls, struct strbuf *why)
{
	const struct ch_table *tables[] = {&ch_stacks_table, &ch_samples_table, &ch_stalls_table};
	size_t n = stalls ? 3 : 2;
	struct strbuf q, answer, name;
	sb_init(&q);
	sb_init(&answer);
	sb_init(&name);
	/* names are checked identifiers (ch_url.h): no quoting needed */
	sb_printf(&q, "SELECT concat(database, '.', table), name, type FROM system.columns WHERE "
		  "database = '%s' AND table IN (", c->url.database);
	for (size_t i = 0; i < n; i++)
		sb_printf(&q, "%s'%s_%s'", i ? ", " : "", c->url.table, tables[i]->suffix);
	sb_add(&q, ") FORMAT TabSeparated");
	bool ok = ch_post(c, q.s, NULL, 0, false, &answer, why);
	for (size_t i = 0; ok && i < n; i++) {
		sb_reset(&name);
		sb_printf(&name, "%s.%s_%s", c->url.database, c->url.table, tables[i]->suffix);
		ok = ch_columns_match(answer.s ? answer.s : "", answer.len, name.s, tables[i], why);
	}
	sb_free(&q);
	sb_free(&answer);
	sb_free(&name);
	return ok;
}
