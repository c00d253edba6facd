/* spool.h — the periods that could not be sent, kept in a bounded local directory until
 * ClickHouse answers again: one file per period (NNNNNNNNNNNNNNNN.v8wspool, the number in hex
 * giving the order), each holding the period's gzip'd RowBinary insert bodies (stacks, samples,
 * stalls) after a header line `V8WSPOOL2 STACKS_LEN SAMPLES_LEN STALLS_LEN\n` (files of agents
 * that sent no stalls, `V8WSPOOL1 STACKS_LEN SAMPLES_LEN\n`, are read too: no stalls). Files appear by rename. When
 * the directory holds more than its limit the oldest files are removed and counted. One agent
 * uses a directory at a time (an flock on DIR/.lock, held while it runs). Spool files are read as
 * hostile input: header, lengths and size are checked. */
#ifndef V8WALK_SPOOL_H
#define V8WALK_SPOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

enum { SPOOL_MAX_FILES = 100000 };
/* A period's insert bodies, in this order */
enum { SPOOL_STACKS, SPOOL_SAMPLES, SPOOL_STALLS, SPOOL_BODIES };

struct spool_bodies {
	const void *data[SPOOL_BODIES];
	size_t len[SPOOL_BODIES];
};
#define SPOOL_FILE_MAX ((uint64_t)256 << 20) /* one period's file at most */

struct spool_entry {
	uint64_t seq;
	uint64_t bytes;
};

struct spool {
	char dir[PATH_MAX - 32];
	uint64_t max_bytes;
	uint64_t next_seq;
	unsigned long dropped;      /* periods removed over the limit */
	int lock_fd;                /* DIR/.lock, flock'ed (-1: none) */
};

/* The directory as the default: $XDG_CACHE_HOME/v8walk-spool, else /var/tmp/v8walk-spool. */
void spool_default_dir(char *out, size_t len);
/* Create (0700) or reuse `dir`; the files already there are kept and sent first. Refused while
 * another agent holds the directory. */
bool spool_open(struct spool *s, const char *dir, uint64_t max_bytes, struct strbuf *why);
/* Let the directory go (the files stay). */
void spool_close(struct spool *s);
/* Add one period's bodies; then the oldest files go while the directory is over its limit. */
bool spool_put(struct spool *s, const struct spool_bodies *b, struct strbuf *why);
/* The spooled periods, oldest first (at most max); returns how many. */
size_t spool_list(const struct spool *s, struct spool_entry *out, size_t max);
/* Read one period's bodies back into out[]; false (with why) when the file is not a well-formed
 * spool file. */
bool spool_read(const struct spool *s, uint64_t seq, struct strbuf out[SPOOL_BODIES],
		struct strbuf *why);
void spool_remove(const struct spool *s, uint64_t seq);

/* Pure bookkeeping: how many of the oldest of `n` entries (oldest first) must go so that the
 * rest hold at most max_bytes. */
size_t spool_over_limit(const struct spool_entry *e, size_t n, uint64_t max_bytes);
/* The sequence number a file name holds, or false when it is not a spool file's name. */
bool spool_name_seq(const char *name, uint64_t *seq);
/* Check a spool file's bytes and find its bodies (a V8WSPOOL1 file's stalls: empty). */
bool spool_parse(const char *data, size_t len, size_t off[SPOOL_BODIES], size_t lens[SPOOL_BODIES]);

#endif
