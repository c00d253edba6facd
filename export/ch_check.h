/* ch_check.h — before v8walk writes or reads: is the server there, are the credentials right,
 * and do PREFIX_samples and PREFIX_stacks have v8walk's columns (ch_schema.h)? Optionally
 * creates the tables first. Each failure is one line. */
#ifndef V8WALK_CH_CHECK_H
#define V8WALK_CH_CHECK_H

#include <stdbool.h>

#include "ch_http.h"

/* Create the tables if absent (cluster: NULL for one server). */
bool ch_create_tables(struct ch_conn *c, const char *cluster, struct strbuf *why);
/* Check both tables' columns (names and types). */
bool ch_check_tables(struct ch_conn *c, struct strbuf *why);
/* Pure: the missing or mistyped column of `table` in a TabSeparated `table\tname\ttype` answer,
 * as one line in why; true when every expected column is there with its type. */
bool ch_columns_match(const char *answer, size_t len, const char *table, bool samples,
		      struct strbuf *why);

#endif
