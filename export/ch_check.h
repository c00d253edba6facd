/* ch_check.h — before v8walk writes or reads: is the server there, are the credentials right,
 * and do PREFIX_samples and PREFIX_stacks (and PREFIX_stalls, for --stalls) have v8walk's
 * columns (ch_schema.h)? Optionally creates the tables first. Each failure is one line. */
#ifndef V8WALK_CH_CHECK_H
#define V8WALK_CH_CHECK_H

#include <stdbool.h>

#include "ch_http.h"
#include "ch_schema.h"

/* Create the tables if absent (cluster: NULL for one server). */
bool ch_create_tables(struct ch_conn *c, const char *cluster, struct strbuf *why);
/* Check the tables' columns (names and types): stacks and samples, and stalls too when `stalls`. */
bool ch_check_tables(struct ch_conn *c, bool stalls, struct strbuf *why);
/* Pure: the missing or mistyped column of table t, named `table` in a TabSeparated
 * `table\tname\ttype` answer, as one line in why; true when every expected column is there with
 * its type. */
bool ch_columns_match(const char *answer, size_t len, const char *table, const struct ch_table *t,
		      struct strbuf *why);

#endif
