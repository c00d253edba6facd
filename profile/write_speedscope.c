/* write_speedscope.c — speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * shared frames (one per function: name, file, definition line), one sampled profile per thread
 * with its samples in time order (root first) and a weight of one sampling period each (µs), so
 * the Time Order, Left Heavy and Sandwich views all work. An untimed profile (report's, with no
 * time order) gives one sample per distinct stack weighing all of its samples. */
#include "writers.h"

#include <stdlib.h>
#include <string.h>

#include "../util/json.h"
#include "../util/xalloc.h"
#include "frame_text.h"

struct speedscope {
	const struct profile *p;
	struct intern functions; /* function key → shared frame index */
	uint32_t *shared_of;     /* profile frame index → shared frame index + 1 */
	uint32_t *path;
	struct strbuf key;
};

static void write_frames(struct speedscope *s, FILE *out)
{
	const struct profile *p = s->p;
	fputs("\"shared\":{\"frames\":[", out);
	for (uint32_t i = 0; i < p->nframes; i++) {
		const struct frame *f = &p->frames[i];
		frame_function_key(f, &s->key);
		size_t before = s->functions.n;
		s->shared_of[i] = intern_n(&s->functions, s->key.s, s->key.len) + 1;
		if (s->functions.n == before)
			continue;
		fprintf(out, "%s\n{\"name\":", before ? "," : "");
		json_string(out, frame_function_name(p->strings, f));
		if (f->file && f->kind != FK_KERNEL) {
			fputs(",\"file\":", out);
			json_string(out, intern_get(p->strings, f->file));
		}
		if (frame_is_js(f) && f->def_line > 0)
			fprintf(out, ",\"line\":%d", f->def_line);
		if (frame_is_js(f) && f->def_col > 0)
			fprintf(out, ",\"col\":%d", f->def_col);
		fputc('}', out);
	}
	fputs("]},\n", out);
}

/* A stack's frames, root first, as one sample of the "samples" array. */
static void write_path(struct speedscope *s, uint32_t leaf, bool first, FILE *out)
{
	const struct profile *p = s->p;
	size_t depth = 0;
	for (uint32_t k = leaf; k && pnode_is_frame(&p->nodes[k]); k = p->nodes[k].parent)
		s->path[depth++] = s->shared_of[p->nodes[k].frame] - 1;
	fputs(first ? "[" : ",[", out);
	while (depth--)
		fprintf(out, "%u%s", s->path[depth], depth ? "," : "");
	fputc(']', out);
}

/* Does node nd end samples of thread ti (an untimed profile's stacks)? */
static bool ends_samples(const struct profile *p, uint32_t nd, uint32_t ti)
{
	return p->nodes[nd].self && p->nodes[nd].owner == ti && p->nodes[nd].frame != PNODE_PROCESS;
}

/* One thread's samples, root first: in time order, one period each; an untimed profile's (no
 * time order) as one sample per stack weighing its samples' periods. */
static void write_thread(struct speedscope *s, uint32_t ti, double period_us, FILE *out)
{
	const struct profile *p = s->p;
	const struct profile_thread *t = &p->threads[ti];
	fputs("{\"type\":\"sampled\",\"name\":", out);
	struct strbuf name;
	sb_init(&name);
	sb_printf(&name, "%s (%d) in %s (%d)", intern_get(p->strings, t->role), (int)t->tid,
		  intern_get(p->strings, t->process_name), (int)t->pid);
	json_string(out, name.s);
	sb_free(&name);
	fprintf(out, ",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":%.3f,\n\"samples\":[",
		period_us * (double)t->samples);
	bool first = true;
	if (p->untimed) {
		for (uint32_t nd = 1; nd < p->nnodes; nd++)
			if (ends_samples(p, nd, ti)) {
				write_path(s, nd, first, out);
				first = false;
			}
		fputs("],\n\"weights\":[", out);
		first = true;
		for (uint32_t nd = 1; nd < p->nnodes; nd++)
			if (ends_samples(p, nd, ti)) {
				fprintf(out, "%s%.3f", first ? "" : ",", period_us * (double)p->nodes[nd].self);
				first = false;
			}
		fputs("]}", out);
		return;
	}
	for (size_t i = 0; i < p->nrecs; i++) {
		uint32_t leaf = p->recs[i].node;
		if (p->nodes[leaf].owner != ti)
			continue;
		write_path(s, leaf, first, out);
		first = false;
	}
	fputs("],\n\"weights\":[", out);
	for (uint64_t i = 0; i < t->samples; i++)
		fprintf(out, "%s%.3f", i ? "," : "", period_us);
	fputs("]}", out);
}

int write_speedscope(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	(void)wo;
	struct speedscope s = {.p = p};
	intern_init(&s.functions);
	sb_init(&s.key);
	s.shared_of = xcalloc(p->nframes + 1, sizeof(uint32_t));
	s.path = xmalloc(sizeof(uint32_t) * (p->nnodes + 1));
	double period_us = p->meta.rate_hz > 0 ? 1e6 / p->meta.rate_hz : 10000;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	write_frames(&s, out);
	fputs("\"profiles\":[", out);
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		fputs(ti ? ",\n" : "\n", out);
		write_thread(&s, ti, period_us, out);
	}
	long active = profile_find_thread(p, NULL);
	fprintf(out, "],\n\"activeProfileIndex\":%ld,\"exporter\":\"v8walk\",\"name\":", active < 0 ? 0 : active);
	char title[512];
	snprintf(title, sizeof(title), "v8walk: %s", p->meta.target);
	json_string(out, title);
	fputs("}\n", out);
	free(s.shared_of);
	free(s.path);
	intern_free(&s.functions);
	sb_free(&s.key);
	return ferror(out) ? -1 : 0;
}
