/* ch_export.c — the period queue and the sender thread of --export (ch_export.h). */
#include "ch_export.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/text_escape.h"
#include "../util/xalloc.h"
#include "ch_check.h"
#include "gzip_buf.h"
#include "hash_index.h"
#include "spool.h"
#include "stall_rows.h"

enum {
	QUEUE_MAX = 64,                 /* periods waiting for the sender */
	SENT_STACKS_MAX = 1 << 20,      /* hashes remembered as sent (then forgotten, resent) */
	SEND_ATTEMPTS = 3,              /* tries of one period before it is spooled */
	RETRY_FIRST_MS = 250,           /* backoff between tries, and before the spool's first retry */
	RETRY_MAX_MS = 30000,           /* the spool's retries back off to this */
	DRAIN_PER_PASS = 64,            /* spool files sent before the queue is looked at again */
};

struct ch_export {
	struct ch_export_config cfg;
	struct row_context rows;        /* sampler thread only */
	struct strbuf pending_stalls;   /* sampler thread only: rows for the next period */
	size_t npending_stalls;
	/* shared, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct period_batch *queue[QUEUE_MAX];
	size_t qhead, qlen;
	bool closing;
	struct ch_export_stats st;
	/* sender thread only */
	pthread_t thread;
	struct ch_conn conn;            /* (opened before the thread starts, then its own) */
	struct spool spool;
	struct hash_index sent_stacks;  /* hashes sent (forgotten when full) */
	bool online;
	bool checked;                   /* the tables were checked (and created): inserts may go */
	bool told_misconfigured;        /* a late check's failure was said once */
	uint64_t retry_at_ns;
	uint64_t backoff_ms;
	unsigned long seq;              /* periods handled, for the status line */
};

static void nap_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void stat_add(struct ch_export *ex, unsigned long *field, unsigned long n)
{
	pthread_mutex_lock(&ex->mu);
	*field += n;
	pthread_mutex_unlock(&ex->mu);
}

/* POST one insert body (already gzip'd), tried SEND_ATTEMPTS times with backoff. */
static bool insert(struct ch_export *ex, const char *table, const struct strbuf *gz, struct strbuf *why)
{
	struct strbuf q, answer;
	sb_init(&q);
	sb_init(&answer);
	sb_printf(&q, "INSERT INTO %s.%s_%s FORMAT RowBinary", ex->cfg.url.database, ex->cfg.url.table,
		  table);
	bool ok = false;
	for (int attempt = 0; attempt < SEND_ATTEMPTS && !ok; attempt++) {
		if (attempt)
			nap_ms((uint64_t)RETRY_FIRST_MS << attempt); /* 0.5 s, 1 s */
		sb_reset(why);
		uint64_t t0 = now_ns();
		ok = ch_post(&ex->conn, q.s, gz->s ? gz->s : "", gz->len, true, &answer, why);
		double ms = (double)(now_ns() - t0) / 1e6;
		if (ok) {
			pthread_mutex_lock(&ex->mu);
			ex->st.inserts++;
			ex->st.insert_ms_sum += ms;
			if (ms > ex->st.insert_ms_max)
				ex->st.insert_ms_max = ms;
			pthread_mutex_unlock(&ex->mu);
		}
	}
	sb_free(&q);
	sb_free(&answer);
	return ok;
}

/* Send a period's gzip'd bodies (spool.h's order): stacks first, so that no sample or stall
 * names a stack the server lacks; an empty body (no fresh stacks, no stalls) is not sent. */
static bool send_bodies(struct ch_export *ex, const struct strbuf gz[SPOOL_BODIES], struct strbuf *why)
{
	static const char *const tables[SPOOL_BODIES] = {"stacks", "samples", "stalls"};
	for (int i = 0; i < SPOOL_BODIES; i++)
		if ((gz[i].len || i == SPOOL_SAMPLES) && !insert(ex, tables[i], &gz[i], why))
			return false;
	return true;
}

/* A raw body gzip'd into gz (left empty when the body is) */
static bool gzip_body(const struct strbuf *raw, struct strbuf *gz)
{
	sb_reset(gz);
	return !raw->len || gzip_buf(raw->s, raw->len, gz);
}

static void free_bodies(struct strbuf gz[SPOOL_BODIES])
{
	for (int i = 0; i < SPOOL_BODIES; i++)
		sb_free(&gz[i]);
}

static size_t bodies_len(const struct strbuf gz[SPOOL_BODIES])
{
	size_t n = 0;
	for (int i = 0; i < SPOOL_BODIES; i++)
		n += gz[i].len;
	return n;
}

/* Say on stderr when the server stops or starts answering. */
static void went_online(struct ch_export *ex, bool online, const char *why)
{
	if (online == ex->online)
		return;
	ex->online = online;
	if (!ex->cfg.status_lines)
		return;
	if (online)
		fprintf(stderr, "v8walk: export: ClickHouse answers again; sending the spool\n");
	else
		fprintf_text(stderr, "v8walk: export: %s; spooling periods to %s\n", why, ex->spool.dir);
}

static void back_off(struct ch_export *ex)
{
	ex->backoff_ms = ex->backoff_ms ? ex->backoff_ms * 2 : RETRY_FIRST_MS;
	if (ex->backoff_ms > RETRY_MAX_MS)
		ex->backoff_ms = RETRY_MAX_MS;
	ex->retry_at_ns = now_ns() + ex->backoff_ms * 1000000ull;
}

static void spool_batch(struct ch_export *ex, const struct period_batch *b, const char *why)
{
	struct strbuf gz[SPOOL_BODIES], err;
	for (int i = 0; i < SPOOL_BODIES; i++)
		sb_init(&gz[i]);
	sb_init(&err);
	unsigned long dropped_before = ex->spool.dropped;
	struct spool_bodies sb;
	bool ok = gzip_body(&b->stacks, &gz[SPOOL_STACKS]) &&
		  gzip_buf(b->samples.s ? b->samples.s : "", b->samples.len, &gz[SPOOL_SAMPLES]) &&
		  gzip_body(&b->stalls, &gz[SPOOL_STALLS]);
	for (int i = 0; i < SPOOL_BODIES; i++) {
		sb.data[i] = gz[i].s ? gz[i].s : "";
		sb.len[i] = gz[i].len;
	}
	if (ok && spool_put(&ex->spool, &sb, &err)) {
		stat_add(ex, &ex->st.spooled, 1);
	} else {
		fprintf_text(stderr, "v8walk: export: period lost: %s (after: %s)\n",
			     err.len ? err.s : "compression failed", why);
		stat_add(ex, &ex->st.dropped, 1);
	}
	stat_add(ex, &ex->st.dropped, ex->spool.dropped - dropped_before);
	free_bodies(gz);
	sb_free(&err);
}

static size_t spool_waiting_now(const struct ch_export *ex)
{
	struct spool_entry *e = xmalloc(SPOOL_MAX_FILES * sizeof(*e));
	size_t n = spool_list(&ex->spool, e, SPOOL_MAX_FILES);
	free(e);
	return n;
}

static void status_line(struct ch_export *ex, const struct period_batch *b, const char *what,
			size_t bytes)
{
	if (!ex->cfg.status_lines)
		return;
	pthread_mutex_lock(&ex->mu);
	struct ch_export_stats st = ex->st;
	pthread_mutex_unlock(&ex->mu);
	fprintf_text(stderr, "v8walk: export period %lu: %s (%zu rows, %zu bytes); so far %lu sent, %lu "
		"spooled, %lu dropped, %lu waiting in the spool%s%s\n", ex->seq, what, b->rows, bytes,
		st.sent, st.spooled, st.dropped, spool_waiting_now(ex), b->note[0] ? "; " : "", b->note);
}

/* A period from the queue: sent now when the server answers and nothing older waits in the
 * spool, spooled otherwise. */
static void handle_batch(struct ch_export *ex, struct period_batch *b, bool spool_waiting)
{
	ex->seq++;
	struct strbuf fresh, gz[SPOOL_BODIES], why;
	sb_init(&fresh);
	for (int i = 0; i < SPOOL_BODIES; i++)
		sb_init(&gz[i]);
	sb_init(&why);
	if (!ex->online || spool_waiting) {
		spool_batch(ex, b, ex->online ? "older periods are waiting" : "ClickHouse unreachable");
		status_line(ex, b, "spooled", 0);
		goto out;
	}
	/* only the stacks this agent has not sent yet */
	for (size_t i = 0; i < b->nstacks; i++) {
		uint64_t v;
		if (hash_index_get(&ex->sent_stacks, b->stack_hashes[i], &v))
			continue;
		size_t start = i ? b->stack_ends[i - 1] : 0;
		sb_addn(&fresh, b->stacks.s + start, b->stack_ends[i] - start);
	}
	gzip_body(&fresh, &gz[SPOOL_STACKS]);
	gzip_buf(b->samples.s ? b->samples.s : "", b->samples.len, &gz[SPOOL_SAMPLES]);
	gzip_body(&b->stalls, &gz[SPOOL_STALLS]);
	if (send_bodies(ex, gz, &why)) {
		for (size_t i = 0; i < b->nstacks; i++)
			hash_index_put(&ex->sent_stacks, b->stack_hashes[i], 1);
		pthread_mutex_lock(&ex->mu);
		ex->st.sent++;
		ex->st.bytes += bodies_len(gz);
		pthread_mutex_unlock(&ex->mu);
		status_line(ex, b, "sent", bodies_len(gz));
	} else {
		went_online(ex, false, why.s);
		back_off(ex);
		spool_batch(ex, b, why.s);
		status_line(ex, b, "spooled", 0);
	}
out:
	sb_free(&fresh);
	free_bodies(gz);
	sb_free(&why);
}

/* Check (and with --create-schema create) the tables; false with one line in why. */
static bool check_tables(struct ch_export *ex, struct strbuf *why)
{
	return (!ex->cfg.create_schema || ch_create_tables(&ex->conn, NULL, why)) &&
	       ch_check_tables(&ex->conn, ex->cfg.stalls, why);
}

/* The server was unreachable at the start: make the checks now. A server that answers but
 * proves a misconfiguration (credentials, a table of another shape) is said once on stderr and
 * the periods keep waiting in the spool (the sender cannot end the run; a DBA may fix it). */
static bool ready(struct ch_export *ex)
{
	if (ex->checked)
		return true;
	struct strbuf why;
	sb_init(&why);
	ex->checked = check_tables(ex, &why);
	if (ex->checked)
		fprintf_text(stderr, "v8walk: export: ClickHouse at %s answers and its tables are "
			     "v8walk's; sending the spool\n", ex->cfg.url.base);
	else if (!ex->conn.unreachable && !ex->told_misconfigured) {
		fprintf_text(stderr, "v8walk: export: %s; periods stay in the spool\n", why.s);
		ex->told_misconfigured = true;
	}
	if (!ex->checked)
		back_off(ex);
	sb_free(&why);
	return ex->checked;
}

/* Send spooled periods, oldest first, until the spool is empty, DRAIN_PER_PASS were sent or the
 * server fails again. Returns whether periods still wait. */
static bool drain_spool(struct ch_export *ex)
{
	struct spool_entry e[DRAIN_PER_PASS];
	size_t n = spool_list(&ex->spool, e, DRAIN_PER_PASS);
	struct strbuf gz[SPOOL_BODIES], why;
	for (int k = 0; k < SPOOL_BODIES; k++)
		sb_init(&gz[k]);
	sb_init(&why);
	size_t i;
	for (i = 0; i < n; i++) {
		sb_reset(&why);
		if (!spool_read(&ex->spool, e[i].seq, gz, &why)) {
			fprintf_text(stderr, "v8walk: export: %s; it is removed\n", why.s);
			spool_remove(&ex->spool, e[i].seq);
			stat_add(ex, &ex->st.dropped, 1);
			continue;
		}
		if (!send_bodies(ex, gz, &why)) {
			went_online(ex, false, why.s);
			back_off(ex);
			break;
		}
		went_online(ex, true, NULL);
		ex->backoff_ms = 0;
		spool_remove(&ex->spool, e[i].seq);
		pthread_mutex_lock(&ex->mu);
		ex->st.sent++;
		ex->st.drained++;
		ex->st.bytes += bodies_len(gz);
		pthread_mutex_unlock(&ex->mu);
	}
	free_bodies(gz);
	sb_free(&why);
	return i < n || n == DRAIN_PER_PASS;
}

static bool spool_nonempty(struct ch_export *ex)
{
	struct spool_entry e[1];
	return spool_list(&ex->spool, e, 1) > 0;
}

static void *sender_main(void *arg)
{
	struct ch_export *ex = arg;
	bool waiting = spool_nonempty(ex);
	pthread_mutex_lock(&ex->mu);
	for (;;) {
		while (!ex->closing && !ex->qlen && !(waiting && now_ns() >= ex->retry_at_ns)) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 100 * 1000 * 1000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&ex->cv, &ex->mu, &until);
		}
		struct period_batch *b = NULL;
		if (ex->qlen) {
			b = ex->queue[ex->qhead];
			ex->qhead = (ex->qhead + 1) % QUEUE_MAX;
			ex->qlen--;
		}
		bool closing = ex->closing;
		pthread_mutex_unlock(&ex->mu);
		/* the spool first (its periods are older), when its retry is due or at the end */
		if (waiting && (now_ns() >= ex->retry_at_ns || (closing && !b)))
			waiting = ready(ex) ? drain_spool(ex) : true;
		if (b) {
			handle_batch(ex, b, waiting);
			waiting = waiting || spool_nonempty(ex);
			period_batch_free(b);
			free(b);
		}
		pthread_mutex_lock(&ex->mu);
		if (ex->closing && !ex->qlen && !b)
			break;
	}
	pthread_mutex_unlock(&ex->mu);
	return NULL;
}

struct ch_export *ch_export_open(const struct ch_export_config *cfg, struct strbuf *why)
{
	struct ch_export *ex = xmalloc(sizeof(*ex));
	memset(ex, 0, sizeof(*ex));
	ex->cfg = *cfg;
	char spool_dir[PATH_MAX - 32];
	if (cfg->spool_dir)
		snprintf(spool_dir, sizeof(spool_dir), "%s", cfg->spool_dir);
	else
		spool_default_dir(spool_dir, sizeof(spool_dir));
	if (!ch_conn_init(&ex->conn, &cfg->url, &cfg->cred)) {
		sb_add(why, "cannot start the HTTP client");
		free(ex);
		return NULL;
	}
	ex->conn.timeout_ms = 10000;
	if (!spool_open(&ex->spool, spool_dir, cfg->spool_max_bytes, why)) {
		ch_conn_free(&ex->conn);
		free(ex);
		return NULL;
	}
	/* a server that answers wrongly is fatal now; one that cannot be reached is waited for */
	struct strbuf check_why;
	sb_init(&check_why);
	ex->checked = check_tables(ex, &check_why);
	if (!ex->checked && !ex->conn.unreachable) {
		sb_add(why, check_why.s);
		sb_free(&check_why);
		spool_close(&ex->spool);
		ch_conn_free(&ex->conn);
		free(ex);
		return NULL;
	}
	sb_free(&check_why);
	if (!ex->checked) {
		fprintf_text(stderr, "v8walk: --export: ClickHouse at %s is unreachable (%s); periods "
			     "are spooled to %s until it answers\n", cfg->url.base,
			     ex->conn.unreachable_why, ex->spool.dir);
		back_off(ex);
	}
	ex->online = ex->checked;
	row_context_init(&ex->rows, cfg->service_spec, cfg->rate_hz);
	sb_init(&ex->pending_stalls);
	memcpy(ex->rows.labels, cfg->labels, sizeof(cfg->labels));
	ex->rows.nlabels = cfg->nlabels;
	hash_index_init(&ex->sent_stacks, SENT_STACKS_MAX);
	pthread_mutex_init(&ex->mu, NULL);
	pthread_cond_init(&ex->cv, NULL);
	/* the sender takes no signal: Ctrl-C, SIGTERM and SIGUSR1 are the sampler's (its signalfd);
	 * one delivered to this thread would end the process before the profile is written */
	sigset_t all, before;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &before);
	int started = pthread_create(&ex->thread, NULL, sender_main, ex);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	if (started != 0) {
		sb_add(why, "cannot start the export thread");
		spool_close(&ex->spool);
		ch_conn_free(&ex->conn);
		row_context_free(&ex->rows);
		sb_free(&ex->pending_stalls);
		hash_index_free(&ex->sent_stacks);
		free(ex);
		return NULL;
	}
	return ex;
}

void ch_export_period(struct ch_export *ex, const struct profile *p, time_t bucket,
		       const char *note)
{
	struct period_batch *b = xmalloc(sizeof(*b));
	period_batch_init(b);
	period_batch_fill(b, &ex->rows, p, bucket);
	snprintf(b->note, sizeof(b->note), "%s", note ? note : "");
	/* the stalls that ended since the last period */
	struct strbuf swap = b->stalls;
	b->stalls = ex->pending_stalls;
	b->nstalls = ex->npending_stalls;
	ex->pending_stalls = swap;
	ex->npending_stalls = 0;
	struct period_batch *lost = NULL;
	pthread_mutex_lock(&ex->mu);
	ex->st.periods++;
	ex->st.rows += b->rows;
	if (ex->qlen == QUEUE_MAX) {
		lost = ex->queue[ex->qhead];
		ex->qhead = (ex->qhead + 1) % QUEUE_MAX;
		ex->qlen--;
		ex->st.dropped++;
	}
	ex->queue[(ex->qhead + ex->qlen) % QUEUE_MAX] = b;
	ex->qlen++;
	pthread_cond_signal(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
	if (lost) {
		period_batch_free(lost);
		free(lost);
	}
}

void ch_export_stall(struct ch_export *ex, const struct intern *strings, const struct stall_report *r,
		     int64_t start_unix_ms)
{
	stall_row_add(&ex->pending_stalls, &ex->rows, strings, r, start_unix_ms);
	ex->npending_stalls++;
}

void ch_export_close(struct ch_export *ex, struct ch_export_stats *st)
{
	pthread_mutex_lock(&ex->mu);
	ex->closing = true;
	pthread_cond_signal(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
	pthread_join(ex->thread, NULL);
	struct spool_entry *e = xmalloc(SPOOL_MAX_FILES * sizeof(*e));
	ex->st.pending = spool_list(&ex->spool, e, SPOOL_MAX_FILES);
	free(e);
	*st = ex->st;
	spool_close(&ex->spool);
	ch_conn_free(&ex->conn);
	row_context_free(&ex->rows);
	sb_free(&ex->pending_stalls);
	hash_index_free(&ex->sent_stacks);
	pthread_mutex_destroy(&ex->mu);
	pthread_cond_destroy(&ex->cv);
	free(ex);
}

void ch_export_print_summary(FILE *f, const struct ch_url *u, const struct ch_export_stats *st)
{
	fprintf(f, "v8walk: export to %s%s.%s_*: %lu periods: %lu sent (%lu of them from the spool), "
		"%lu spooled, %lu dropped, %lu still in the spool; %llu rows made, %llu bytes sent",
		u->base, u->database, u->table, st->periods, st->sent, st->drained, st->spooled,
		st->dropped, st->pending, (unsigned long long)st->rows, (unsigned long long)st->bytes);
	if (st->inserts)
		fprintf(f, "; inserts %.1f ms on average, %.1f ms at most", st->insert_ms_sum / st->inserts,
			st->insert_ms_max);
	fputc('\n', f);
}
