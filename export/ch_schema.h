/* ch_schema.h — the two tables v8walk writes and reads, as DDL and as the column list a table
 * must have to be used:
 *   PREFIX_stacks   stack_hash UInt64 → frames Array(String) (outermost first, folded text),
 *                   ReplacingMergeTree ordered by stack_hash: each distinct stack stored once
 *   PREFIX_samples  one row per (period, process, thread, stack): bucket DateTime (the period's
 *                   start), host, service, labels (Nested key/value: 18.16 has no Map), pid, tid,
 *                   process, thread, stack_hash, count, cpu_ns; MergeTree partitioned by day,
 *                   ordered by (service, bucket, host, stack_hash) for "one service over a range"
 *   PREFIX_stalls   one row per stall of an event loop (--stalls): time DateTime and start_ms
 *                   (Unix ms; 18.16 has no DateTime64) when the iteration began, host, service, labels, pid, tid, process, thread,
 *                   duration_ms, began_before, unfinished, samples and their classes (js, gc,
 *                   native, builtin), the native and builtin frames that name those classes, the
 *                   JS frames of the most frequent (innermost first), and the stall's stacks
 *                   (stack_hashes, stack_counts: frames in PREFIX_stacks); MergeTree by day,
 *                   ordered by (service, time, host)
 * With a cluster, the MergeTree tables are PREFIX_local_* ON CLUSTER and PREFIX_* are Distributed
 * tables over them; agents may write either (URL table PREFIX, or PREFIX_local for a shard of
 * their own), report reads PREFIX. Sharding: stacks by stack_hash (a stack's row always lands on
 * the same shard, so ReplacingMergeTree folds the copies agents send), samples by
 * cityHash64(host) (an agent's period is one block for one shard, not a part on every shard per
 * insert as rand() gives). A stack's samples and its stacks row need not share a shard: report
 * asks for the frames with GLOBAL IN over the Distributed tables. Inserts through a Distributed
 * table are queued by the server that takes them and forwarded in the background, so rows show
 * on the shards a moment after the insert answers. */
#ifndef V8WALK_CH_SCHEMA_H
#define V8WALK_CH_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/strbuf.h"

enum { CH_SCHEMA_MAX_STATEMENTS = 7 };

struct ch_column {
	const char *name, *type; /* as system.columns names them */
};

/* One of the tables: its name after the prefix and its columns, in insert order. */
struct ch_table {
	const char *suffix; /* "stacks", "samples", "stalls" */
	const struct ch_column *columns;
	size_t ncolumns;
};

extern const struct ch_table ch_stacks_table, ch_samples_table, ch_stalls_table;

/* The statements that create the database and the tables if absent (cluster NULL: a single
 * server; ttl_days > 0: samples expire that many days after their bucket), each in out[i]
 * (initialised here); returns how many. */
size_t ch_schema_statements(const char *database, const char *prefix, const char *cluster,
			    unsigned ttl_days, struct strbuf out[CH_SCHEMA_MAX_STATEMENTS]);
/* The whole DDL as text for `v8walk schema`: statements ending in ';', with comments. */
void ch_schema_text(const char *database, const char *prefix, const char *cluster, unsigned ttl_days,
		    struct strbuf *out);

#endif
