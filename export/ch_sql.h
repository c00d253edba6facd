/* ch_sql.h — the SQL text report sends: values quoted as ClickHouse string literals (every
 * quote and backslash escaped; control bytes refused), filters on the samples table (a column
 * or a label), and the time range. Nothing the user typed reaches the query unquoted. */
#ifndef V8WALK_CH_SQL_H
#define V8WALK_CH_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

/* Append s[0..len) as a quoted literal; false (nothing appended) when it holds a control byte. */
bool ch_quote(struct strbuf *out, const char *s, size_t len);

/* Append ` AND <condition>` for --where KEY=VALUE: service, host, process and thread compare
 * their columns, pid and tid need a number, any other key (letters, digits, '_', '.', '-') is a
 * label. false with one line in why when it is not such a filter. */
bool ch_where_condition(struct strbuf *out, const char *key_value, struct strbuf *why);

/* A time given as a duration back from `now` (90s, 30m, 2h, 7d, or seconds), "now", Unix seconds
 * after '@', or a UTC date "YYYY-MM-DD[ HH:MM[:SS]]" ('T' also separates); false when not. */
bool ch_parse_time(const char *text, int64_t now, int64_t *out);

#endif
