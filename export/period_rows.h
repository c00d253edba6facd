/* period_rows.h — one period's aggregation (profile.h) as ClickHouse rows: every distinct stack
 * once (stack_hash, frames) and one samples row per (process, thread, stack) with its count, in
 * RowBinary (rowbinary.h) in the column order of ch_schema.h. The service of each process is
 * looked up once per pid and period (service_name.h: a pid may be reused between periods); a
 * process in a container gets the label container=ID (its short id, as its sampler found it)
 * after the --label ones. */
#ifndef V8WALK_PERIOD_ROWS_H
#define V8WALK_PERIOD_ROWS_H

#include <stdint.h>
#include <time.h>

#include "../profile/profile.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"

enum { EXPORT_LABELS_MAX = 16, SERVICE_CACHE_MAX = 4096 };

struct export_label {
	const char *key, *value;
};

/* What every row of this agent says: the host, the labels, how a sample's CPU time is counted. */
struct row_context {
	char host[256];
	const char *service_spec;           /* --label service=…: NULL, "auto" or a name */
	struct export_label labels[EXPORT_LABELS_MAX]; /* the other --label k=v */
	size_t nlabels;
	uint64_t ns_per_sample;             /* cpu_ns = count × this (1e9 / rate) */
	struct intern services;             /* pid → service, cached */
	struct u64map service_of_pid;       /* pid + 1 → id in services, this period */
};

/* One period as rows. stacks: RowBinary rows of its distinct stacks; stack_hashes/stack_ends:
 * each one's hash and where its row ends in `stacks` (so a sender can leave out stacks it has
 * sent already); samples: RowBinary samples rows. */
struct period_batch {
	uint32_t bucket;            /* the period's start, Unix seconds */
	struct strbuf stacks;
	uint64_t *stack_hashes;
	size_t *stack_ends;
	size_t nstacks, capstacks;
	struct strbuf samples;
	size_t rows;
	uint64_t count;             /* samples in the period */
	char note[256];             /* for the period's status line (what the sampler warned of) */
	struct strbuf stalls;       /* RowBinary rows of the stalls that ended in it (--stalls) */
	size_t nstalls;
};

void row_context_init(struct row_context *rc, const char *service_spec, double rate_hz);
void row_context_free(struct row_context *rc);

void period_batch_init(struct period_batch *b);
void period_batch_free(struct period_batch *b);
/* The rows of profile p, a period that began at `bucket` (Unix seconds). */
void period_batch_fill(struct period_batch *b, struct row_context *rc, const struct profile *p,
		       time_t bucket);

/* Each stack of p that ends samples, with its hash as the stacks table has it (the stack rows a
 * period holds) and its count. */
void profile_stack_hashes(const struct profile *p, void (*fn)(void *ctx, uint64_t hash, uint64_t count),
			  void *ctx);
/* Where a row comes from, as the samples and stalls tables begin after their time: the agent's
 * host, the process's service (as its sample rows name it this period), the agent's labels and
 * the process's container as the label `container` (container.len 0: in none). */
void row_put_origin(struct strbuf *rows, struct row_context *rc, pid_t pid, struct strview container);

#endif
