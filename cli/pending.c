/* pending.c — grouping and printing what a process waits on. */
#include "pending.h"

#include <stdlib.h>
#include <string.h>

#include "../util/json.h"
#include "../util/strbuf.h"
#include "../util/text_escape.h"
#include "../util/u64map.h"
#include "../util/xalloc.h"
#include "exit_codes.h"
#include "modes.h"

enum {
	MAX_PAGES = 1 << 18,          /* 64 GiB of 256 KiB pages */
	MAX_CANDIDATES = 1 << 22,     /* 64 MiB of candidates before a second pass */
	MAX_FUNCTIONS = 1 << 20,
	MAX_CHAIN = 256,
	MAX_FRAMES = 1 << 22,         /* of all chains: 4 Mi frames, 160 MiB */
	BUDGET_S = 120,
};

static const char *s(const struct pending_report *pr, uint32_t id)
{
	return intern_get(pr->strings, id);
}

/* The text that says which chain a frame list is (names and positions). */
static void chain_key(const struct intern *strings, const struct frame *f, int n, struct strbuf *key)
{
	sb_reset(key);
	for (int i = 0; i < n; i++)
		sb_printf(key, "%s\x1f%s\x1f%d\x1f%d\x1e", intern_get(strings, f[i].name), intern_get(strings, f[i].file),
			  f[i].line, f[i].col);
}

static int by_count(const void *a, const void *b)
{
	const struct pending_group *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

bool pending_collect(struct pending_report *pr, struct stackwalk *sw, const struct v8_heap *h,
		     struct memsrc *live, const char **why)
{
	pr->strings = sw->strings;
	pr->live = live != NULL;
	async_frames_load(&sw->async, sw->rt, sw->as);
	struct pending_limits lim = {.max_pages = MAX_PAGES, .max_candidates = MAX_CANDIDATES,
				     .max_functions = MAX_FUNCTIONS, .max_chain = MAX_CHAIN, .max_frames = MAX_FRAMES,
				     .budget_ns = (uint64_t)BUDGET_S * 1000000000ull};
	if (!pending_scan(h, live, sw->as, sw->rt, &sw->async.ids, &lim, &pr->r, why))
		return false;
	struct u64map groups;
	u64map_init(&groups, 0);
	struct intern keys;
	intern_init(&keys);
	struct strbuf key;
	sb_init(&key);
	struct frame *named = xmalloc(sizeof(*named) * (MAX_CHAIN + 1));
	uint32_t unreadable = intern_str(sw->strings, "async [function not readable]");
	for (size_t i = 0; i < pr->r.n; i++) {
		const struct pending_fn *fn = &pr->r.v[i];
		if (fn->awaited)
			continue;
		pr->innermost++;
		stackwalk_begin_names(sw);
		int n = (int)fn->chain_n;
		/* outermost first */
		for (int k = 0; k < n; k++) {
			struct frame *f = &named[n - 1 - k];
			if (!stackwalk_async_frame(sw, h, &pr->r.frames[fn->chain_at + (size_t)k], f)) {
				memset(f, 0, sizeof(*f));
				f->kind = FK_JS_ASYNC;
				f->name = unreadable;
			}
		}
		chain_key(sw->strings, named, n, &key);
		uint32_t id = intern_n(&keys, key.s, key.len);
		uint64_t g;
		if (u64map_get(&groups, (uint64_t)id + 1, &g)) {
			pr->g[g - 1].count++;
			continue;
		}
		XGROW(pr->g, pr->capg, pr->ng + 1);
		struct pending_group *pg = &pr->g[pr->ng++];
		pg->count = 1;
		pg->nframes = n;
		pg->frames = xmalloc(sizeof(*pg->frames) * (size_t)(n ? n : 1));
		memcpy(pg->frames, named, sizeof(*named) * (size_t)n);
		u64map_put(&groups, (uint64_t)id + 1, pr->ng);
	}
	qsort(pr->g, pr->ng, sizeof(*pr->g), by_count);
	free(named);
	sb_free(&key);
	intern_free(&keys);
	u64map_free(&groups);
	return true;
}

void pending_report_free(struct pending_report *pr)
{
	for (size_t i = 0; i < pr->ng; i++)
		free(pr->g[i].frames);
	free(pr->g);
	pending_result_free(&pr->r);
	memset(pr, 0, sizeof(*pr));
}

static void frame_line(const struct pending_report *pr, const struct frame *f, struct strbuf *b)
{
	sb_add(b, s(pr, f->name));
	if (f->file && *s(pr, f->file)) {
		sb_printf(b, " (%s", s(pr, f->file));
		if (f->line > 0)
			sb_printf(b, ":%d:%d", f->line, f->col);
		sb_addc(b, ')');
	}
}

int pending_write_text(const struct pending_report *pr, FILE *out)
{
	struct strbuf b;
	sb_init(&b);
	/* one line at a time: a name's controls are escaped, the lines' own ends are not */
	sb_printf(&b, "process %d (%s), %s: %zu async functions suspended; %zu waiting innermost, in %zu "
		      "chains (outermost first, each innermost function at the await it waits in)%s",
		  (int)pr->pid, pr->runtime, pr->source, pr->r.n, pr->innermost, pr->ng,
		  pr->r.capped ? " [partial: a limit was reached]" : "");
	fprintf_text(out, "%s\n", b.s);
	for (size_t i = 0; i < pr->ng; i++) {
		const struct pending_group *g = &pr->g[i];
		fprintf(out, "\n%zu waiting in:\n", g->count);
		for (int k = 0; k < g->nframes; k++) {
			sb_reset(&b);
			sb_add(&b, "    ");
			frame_line(pr, &g->frames[k], &b);
			fprintf_text(out, "%s\n", b.s);
		}
	}
	sb_free(&b);
	return ferror(out) ? -1 : 0;
}

static void json_frame(const struct pending_report *pr, const struct frame *f, FILE *out)
{
	fputs("{\"name\":", out);
	json_string(out, s(pr, f->name));
	/* the function's own name (without the "async " the frame's names carry) */
	const char *own = s(pr, f->fn_name ? f->fn_name : f->name);
	fputs(",\"function\":", out);
	json_string(out, strncmp(own, "async ", 6) == 0 ? own + 6 : own);
	fputs(",\"file\":", out);
	if (f->file)
		json_string(out, s(pr, f->file));
	else
		fputs("null", out);
	if (f->line > 0)
		fprintf(out, ",\"line\":%d,\"column\":%d", f->line, f->col);
	else
		fputs(",\"line\":null,\"column\":null", out);
	fputc('}', out);
}

int pending_write_json(const struct pending_report *pr, FILE *out)
{
	const struct pending_result *r = &pr->r;
	fprintf(out, "{\"pid\":%d,\"runtime\":", (int)pr->pid);
	json_string(out, pr->runtime);
	fputs(",\"source\":", out);
	json_string(out, pr->source);
	fprintf(out, ",\"suspended\":%zu,\"innermost\":%zu,\"partial\":%s", r->n, pr->innermost,
		r->capped ? "true" : "false");
	fprintf(out, ",\"scan\":{\"pages\":%zu,\"from_pages_skipped\":%zu,\"large_pages_skipped\":%zu,"
		     "\"heaps\":%zu,\"bytes\":%llu,\"pages_ms\":%.1f,\"scan_ms\":%.1f,\"walk_ms\":%.1f,\"allocator\":",
		r->pages, r->from_pages, r->large_pages, r->heaps, (unsigned long long)r->bytes,
		(double)r->pages_ns / 1e6, (double)r->scan_ns / 1e6, (double)r->walk_ns / 1e6);
	json_string(out, r->allocator_how ? r->allocator_how : "");
	fprintf(out, ",\"meta_maps\":%zu,\"async_maps\":%zu,\"candidates\":%zu,\"not_objects\":%zu,"
		     "\"running\":%zu,\"changed\":%zu,\"moved\":%zu,\"retries\":%zu}",
		r->meta_maps, r->async_maps, r->candidates, r->not_objects, r->running, r->changed, r->moved,
		r->retries);
	fputs(",\"groups\":[", out);
	for (size_t i = 0; i < pr->ng; i++) {
		const struct pending_group *g = &pr->g[i];
		fprintf(out, "%s\n{\"count\":%zu,\"frames\":[", i ? "," : "", g->count);
		for (int k = 0; k < g->nframes; k++) {
			if (k)
				fputc(',', out);
			json_frame(pr, &g->frames[k], out);
		}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
	return ferror(out) ? -1 : 0;
}

void pending_summary(const struct pending_report *pr, FILE *out)
{
	const struct pending_result *r = &pr->r;
	double gib = (double)r->bytes / (double)(1ull << 30);
	fprintf_text(out,
		     "v8walk: pending: %zu heap pages of %zu heap%s found in %.0f ms (%zu aligned addresses "
		     "looked at; allocator from %s), %.1f MiB of them read and scanned in %.0f ms (%.0f ms per "
		     "GiB; %zu inactive young and %zu large-object pages skipped), chains followed in %.0f ms; "
		     "%zu suspended, %zu running or closed; left out: %zu changed and %zu moved while they "
		     "were read%s%s\n",
		     r->pages, r->heaps, r->heaps == 1 ? "" : "s", (double)r->pages_ns / 1e6, r->aligned,
		     r->allocator_how ? r->allocator_how : "?", (double)r->bytes / 1048576.0, (double)r->scan_ns / 1e6,
		     gib > 0 ? (double)r->scan_ns / 1e6 / gib : 0.0, r->from_pages, r->large_pages,
		     (double)r->walk_ns / 1e6, r->n, r->running,
		     r->changed, r->moved,
		     r->retries ? "; scanned again after a scavenge flipped the young generation" : "",
		     pr->live ? "; the process was not stopped" : "");
}

int pending_run(struct pending_report *pr, struct stackwalk *sw, const struct v8_heap *h,
		struct memsrc *live, const struct options *o)
{
	const char *why = NULL;
	if (!pending_collect(pr, sw, h, live, &why))
		return fail_msg(why);
	int rc = EXIT_ERROR;
	FILE *out = open_output(o);
	if (out)
		rc = close_output(o, out, o->json ? pending_write_json(pr, out) : pending_write_text(pr, out));
	if (!o->quiet)
		pending_summary(pr, stderr);
	return rc;
}
