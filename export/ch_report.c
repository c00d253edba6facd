/* ch_report.c — aggregation in ClickHouse, then v8walk's own profile (ch_report.h). */
#include "ch_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/xalloc.h"
#include "frame_parse.h"
#include "hash_index.h"
#include "rowbinary.h"

bool ch_decode_counts(const char *data, size_t len, struct stack_count **out, size_t *n,
		      struct strbuf *why)
{
	struct rb_cursor c;
	rb_cursor_init(&c, data, len);
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	while (!rb_at_end(&c) && !c.failed) {
		if (*n == REPORT_STACKS_MAX) {
			sb_printf(why, "the filter matches more than %d distinct stacks: narrow it",
				  REPORT_STACKS_MAX);
			return false;
		}
		uint64_t hash = rb_get_u64(&c), count = rb_get_u64(&c);
		if (c.failed)
			break;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = (struct stack_count){hash, count};
	}
	if (c.failed) {
		sb_add(why, "ClickHouse's answer (stack counts) is cut short or malformed");
		return false;
	}
	return true;
}

static void time_range(struct strbuf *q, const char *column, int64_t since, int64_t until)
{
	sb_printf(q, "%s >= toDateTime(%" PRId64 ") AND %s < toDateTime(%" PRId64 ")", column, since,
		  column, until);
}

/* FROM … WHERE … of a source's rows of one stack each (as `h`, with its count `c`): the samples,
 * or each stall's stacks spread by ARRAY JOIN (18.16 has no arrayZip). */
static void source_rows(struct strbuf *q, enum report_source src, const char *db, const char *t,
			const char *where_sql, int64_t since, int64_t until)
{
	if (src == REPORT_SAMPLES) {
		sb_printf(q, "FROM %s.%s_samples WHERE ", db, t);
		time_range(q, "bucket", since, until);
	} else {
		sb_printf(q, "FROM %s.%s_stalls ARRAY JOIN stack_hashes AS h, stack_counts AS c WHERE ",
			  db, t);
		time_range(q, "time", since, until);
	}
	sb_add(q, where_sql);
}

/* Add `count` samples of the stack whose frames (outermost first) the cursor holds. */
static bool add_stack(struct profile *p, struct rb_cursor *c, struct frame *frames,
		      const struct sample *base, uint64_t count)
{
	uint64_t nframes = rb_get_varuint(c);
	if (c->failed || nframes > REPORT_FRAMES_MAX)
		return false;
	for (uint64_t i = 0; i < nframes; i++) {
		const char *s;
		size_t len;
		if (!rb_get_string(c, REPORT_FRAME_TEXT_MAX, &s, &len))
			return false;
		frame_parse(p->strings, s, len, &frames[nframes - 1 - i]); /* innermost first */
	}
	struct sample smp = *base;
	smp.frames = frames;
	smp.n = (int)nframes;
	profile_add_weighted(p, &smp, count);
	return true;
}

bool ch_report_add_stacks(struct profile *p, const struct stack_count *counts, size_t ncounts,
			  const char *data, size_t len, const char *root_label, size_t *missing,
			  struct strbuf *why)
{
	struct hash_index index; /* hash → position in counts */
	hash_index_init(&index, 0);
	for (size_t i = 0; i < ncounts; i++)
		hash_index_put(&index, counts[i].hash, i);
	struct sample base = {.process_name = intern_str(p->strings, root_label),
			      .thread_role = intern_str(p->strings, "all")};
	struct frame *frames = xmalloc(REPORT_FRAMES_MAX * sizeof(*frames));
	bool *seen = xcalloc(ncounts ? ncounts : 1, sizeof(bool));
	bool ok = true;
	struct rb_cursor cur;
	rb_cursor_init(&cur, data, len);
	while (!rb_at_end(&cur)) {
		uint64_t hash = rb_get_u64(&cur), at;
		if (cur.failed || !hash_index_get(&index, hash, &at) || seen[at] ||
		    !add_stack(p, &cur, frames, &base, counts[at].count)) {
			sb_add(why, "ClickHouse's answer (stacks) is cut short, malformed or names a "
				    "stack it was not asked for");
			ok = false;
			break;
		}
		seen[at] = true;
	}
	/* samples whose stack the stacks table lacks: shown, not dropped */
	*missing = 0;
	for (size_t i = 0; ok && i < ncounts; i++) {
		if (seen[i])
			continue;
		(*missing)++;
		char text[64];
		int tlen = snprintf(text, sizeof(text), "[v8walk: stack %016" PRIx64 " not stored]",
				    counts[i].hash);
		struct rb_cursor one;
		struct strbuf enc;
		sb_init(&enc);
		rb_put_varuint(&enc, 1);
		rb_put_string(&enc, text, (size_t)tlen);
		rb_cursor_init(&one, enc.s, enc.len);
		add_stack(p, &one, frames, &base, counts[i].count);
		sb_free(&enc);
	}
	free(seen);
	free(frames);
	hash_index_free(&index);
	return ok;
}

bool ch_report_fetch(struct ch_conn *c, enum report_source src, const char *where_sql,
		     int64_t since, int64_t until, const char *root_label, struct profile *p,
		     struct report_figures *fig, struct strbuf *why)
{
	const char *db = c->url.database, *t = c->url.table;
	const char *hash = src == REPORT_SAMPLES ? "stack_hash" : "h";
	const char *count = src == REPORT_SAMPLES ? "count" : "c";
	struct strbuf q, answer;
	sb_init(&q);
	sb_init(&answer);
	memset(fig, 0, sizeof(*fig));
	uint64_t t0 = now_ns();
	/* 1: the counts per stack, summed by ClickHouse */
	sb_printf(&q, "SELECT %s, sum(%s) ", hash, count);
	source_rows(&q, src, db, t, where_sql, since, until);
	sb_printf(&q, " GROUP BY %s FORMAT RowBinary", hash);
	struct stack_count *counts = NULL;
	size_t ncounts = 0;
	bool ok = ch_post(c, q.s, NULL, 0, false, &answer, why) &&
		  ch_decode_counts(answer.s, answer.len, &counts, &ncounts, why);
	for (size_t i = 0; ok && i < ncounts; i++) {
		if (counts[i].count > UINT64_MAX / 2 - fig->samples) {
			sb_add(why, "ClickHouse's answer (stack counts) sums to more samples than can be");
			ok = false;
		}
		fig->samples += ok ? counts[i].count : 0;
	}
	/* 2: the frames of just those stacks */
	sb_reset(&q);
	sb_printf(&q, "SELECT stack_hash, any(frames) FROM %s.%s_stacks WHERE stack_hash GLOBAL IN "
		  "(SELECT %s ", db, t, hash);
	source_rows(&q, src, db, t, where_sql, since, until);
	sb_add(&q, ") GROUP BY stack_hash FORMAT RowBinary");
	sb_reset(&answer);
	if (ok && ncounts)
		ok = ch_post(c, q.s, NULL, 0, false, &answer, why);
	fig->query_ms = (double)(now_ns() - t0) / 1e6;
	if (ok)
		ok = ch_report_add_stacks(p, counts, ncounts, answer.s, answer.len, root_label,
					  &fig->missing_frames, why);
	fig->stacks = ncounts;
	free(counts);
	sb_free(&q);
	sb_free(&answer);
	return ok;
}

/* A string of the answer into a fixed field (cut at its size). */
static bool get_text(struct rb_cursor *cur, char *out, size_t cap)
{
	const char *s;
	size_t len;
	if (!rb_get_string(cur, REPORT_FRAME_TEXT_MAX, &s, &len))
		return false;
	size_t n = len < cap - 1 ? len : cap - 1;
	memcpy(out, s, n);
	out[n] = 0;
	return true;
}

bool ch_decode_stall_rows(const char *data, size_t len, struct stall_row *out, size_t max,
			  size_t *n, struct strbuf *why)
{
	struct rb_cursor cur;
	rb_cursor_init(&cur, data, len);
	*n = 0;
	while (!rb_at_end(&cur)) {
		if (*n == max) {
			sb_add(why, "ClickHouse's answer (stalls) holds more rows than were asked for");
			return false;
		}
		struct stall_row *r = &out[*n];
		memset(r, 0, sizeof(*r));
		r->start_ms = (int64_t)rb_get_u64(&cur);
		r->duration_ms = rb_get_f64(&cur);
		r->pid = rb_get_u32(&cur);
		r->samples = rb_get_u32(&cur);
		for (int k = 0; k < 4; k++)
			r->classes[k] = rb_get_u32(&cur);
		if (cur.failed || !get_text(&cur, r->host, sizeof(r->host)) ||
		    !get_text(&cur, r->service, sizeof(r->service)) ||
		    !get_text(&cur, r->frames, sizeof(r->frames)) || r->duration_ms != r->duration_ms) {
			sb_add(why, "ClickHouse's answer (stalls) is cut short or malformed");
			return false;
		}
		(*n)++;
	}
	return true;
}

bool ch_report_slowest_stalls(struct ch_conn *c, const char *where_sql, int64_t since, int64_t until,
			      struct stall_row *out, size_t max, size_t *n, uint64_t *total,
			      struct strbuf *why)
{
	const char *db = c->url.database, *t = c->url.table;
	struct strbuf q, answer;
	sb_init(&q);
	sb_init(&answer);
	sb_printf(&q, "SELECT start_ms, duration_ms, pid, samples, js, gc, native, builtin, host, "
		  "service, arrayStringConcat(frames, ' < ') FROM %s.%s_stalls WHERE ", db, t);
	time_range(&q, "time", since, until);
	sb_printf(&q, "%s ORDER BY duration_ms DESC LIMIT %zu FORMAT RowBinary", where_sql, max);
	bool ok = ch_post(c, q.s, NULL, 0, false, &answer, why) &&
		  ch_decode_stall_rows(answer.s, answer.len, out, max, n, why);
	sb_reset(&q);
	sb_printf(&q, "SELECT count() FROM %s.%s_stalls WHERE ", db, t);
	time_range(&q, "time", since, until);
	sb_printf(&q, "%s FORMAT RowBinary", where_sql);
	sb_reset(&answer);
	if (ok)
		ok = ch_post(c, q.s, NULL, 0, false, &answer, why);
	if (ok) {
		struct rb_cursor cur;
		rb_cursor_init(&cur, answer.s, answer.len);
		*total = rb_get_u64(&cur);
		if (cur.failed || !rb_at_end(&cur)) {
			sb_add(why, "ClickHouse's answer (the count of stalls) is malformed");
			ok = false;
		}
	}
	sb_free(&q);
	sb_free(&answer);
	return ok;
}
