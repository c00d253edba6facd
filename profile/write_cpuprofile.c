/* write_cpuprofile.c — Chrome DevTools' Profiler.Profile (.cpuprofile), as `node --cpu-prof`
 * writes it: one thread (an isolate), a node per distinct call path of functions with callFrame
 * {functionName, scriptId, url, lineNumber, columnNumber} (0-based: the function's definition),
 * hitCount, children and positionTicks (1-based lines that samples were at), then startTime,
 * endTime, samples (the leaf node of each sample, in time order) and timeDeltas (µs). Native
 * frames are nodes with an empty url; a sample with no JavaScript that waits in epoll is
 * (idle), one inside V8's garbage collector is (garbage collector), as V8 names them. An
 * untimed profile (report's: counts per stack, no time order) lists each stack's samples one
 * after the other, a sampling period apart, up to CPUPROFILE_UNTIMED_MAX (beyond: refused, with
 * the formats that hold counts named). */
#include "writers.h"

#include <stdlib.h>
#include <string.h>

#include "../util/json.h"
#include "../util/xalloc.h"
#include "../walker/gc_frames.h"
#include "frame_text.h"

/* samples of an untimed profile written at most (each is listed: ~10 bytes of JSON apiece) */
#define CPUPROFILE_UNTIMED_MAX ((uint64_t)64 << 20)

struct cpnode {
	uint32_t frame;  /* a representative frame (UINT32_MAX: a pseudo-frame) */
	const char *pseudo;
	uint32_t parent, first_child, next_sibling;
	uint64_t hits;
};

struct tick {
	uint32_t node;
	int32_t line;
	uint64_t count;
};

static int cmp_tick(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct cpprof {
	const struct profile *p;
	struct cpnode *nodes; /* [0] unused, ids from 1 */
	size_t n, cap;
	struct u64map child_of;  /* (parent << 32 | function id) + 1 → node */
	struct intern functions; /* function keys → function id */
	struct intern scripts;   /* url → scriptId - 1 */
	struct tick *ticks;      /* samples per (node, line), sorted by node before writing */
	size_t nticks, capticks;
	uint32_t *of_pnode;      /* profile node → cp node (0 = not yet) */
	struct strbuf key;
};

static uint32_t new_node(struct cpprof *c, uint32_t parent, uint32_t frame, const char *pseudo)
{
	XGROW(c->nodes, c->cap, c->n + 1);
	uint32_t id = (uint32_t)c->n++;
	c->nodes[id] = (struct cpnode){.frame = frame, .pseudo = pseudo, .parent = parent};
	if (parent) {
		c->nodes[id].next_sibling = c->nodes[parent].first_child;
		c->nodes[parent].first_child = id;
	}
	return id;
}

static uint32_t child(struct cpprof *c, uint32_t parent, uint32_t fid, uint32_t frame,
		      const char *pseudo)
{
	uint64_t k = ((uint64_t)parent << 32 | fid) + 1, v;
	if (u64map_get(&c->child_of, k, &v))
		return (uint32_t)v;
	uint32_t id = new_node(c, parent, frame, pseudo);
	u64map_put(&c->child_of, k, id);
	return id;
}

/* The cp node of a profile node (its thread node is the root, id 1). */
static uint32_t cp_of(struct cpprof *c, uint32_t pn)
{
	if (c->of_pnode[pn])
		return c->of_pnode[pn];
	const struct pnode *nd = &c->p->nodes[pn];
	if (!pnode_is_frame(nd))
		return c->of_pnode[pn] = 1;
	uint32_t parent = cp_of(c, nd->parent);
	frame_function_key(&c->p->frames[nd->frame], &c->key);
	uint32_t fid = intern_n(&c->functions, c->key.s, c->key.len);
	return c->of_pnode[pn] = child(c, parent, fid, nd->frame, NULL);
}

static bool name_has(const struct profile *p, const struct frame *f, const char *what)
{
	return f->kind != FK_ROOT && strstr(intern_get(p->strings, f->name), what) != NULL;
}

/* (idle) or (garbage collector) for a sample ending at pn, or NULL. */
static const char *pseudo_of(const struct profile *p, uint32_t pn)
{
	bool js = false, gc = false, idle = false;
	for (uint32_t k = pn; k && pnode_is_frame(&p->nodes[k]); k = p->nodes[k].parent) {
		const struct frame *f = &p->frames[p->nodes[k].frame];
		js |= frame_is_js(f);
		gc |= p->meta.v8_self ? frame_in_gc_state(p->strings, f) : frame_is_gc_entry(p->strings, f);
		if (k == pn)
			idle = name_has(p, f, "epoll_wait") || name_has(p, f, "epoll_pwait");
	}
	return gc ? "(garbage collector)" : idle && !js ? "(idle)" : NULL;
}

/* The node a sample is counted at. */
static uint32_t leaf_of(struct cpprof *c, uint32_t pn)
{
	const char *pseudo = pseudo_of(c->p, pn);
	if (!pseudo)
		return cp_of(c, pn);
	uint32_t fid = intern_str(&c->functions, pseudo);
	return child(c, 1, fid, UINT32_MAX, pseudo);
}

static void call_frame(struct cpprof *c, const struct cpnode *n, FILE *out)
{
	const struct frame *f = n->frame == UINT32_MAX ? NULL : &c->p->frames[n->frame];
	fputs("\"callFrame\":{\"functionName\":", out);
	json_string(out, n->pseudo ? n->pseudo : frame_function_name(c->p->strings, f));
	bool js = f && frame_is_js(f) && f->file;
	/* WebAssembly: its module's url, as V8 gives its functions (which one is not known) */
	bool in_script = f && frame_in_script(f) && f->file;
	const char *url = in_script ? intern_get(c->p->strings, f->file) : "";
	fprintf(out, ",\"scriptId\":\"%u\",\"url\":", in_script ? intern_str(&c->scripts, url) + 1 : 0);
	json_string(out, url);
	/* (0-based) where V8 places the function: its StartPosition, or the original definition
	 * when a source map moved the frame */
	bool at_start = js && !f->gen_file && f->start_line > 0;
	int32_t l1 = at_start ? f->start_line : js ? f->def_line : 0;
	int32_t c1 = at_start ? f->start_col : js ? f->def_col : 0;
	int line = l1 > 0 ? l1 - 1 : -1;
	int col = line >= 0 ? (c1 > 0 ? c1 - 1 : 0) : -1;
	fprintf(out, ",\"lineNumber\":%d,\"columnNumber\":%d}", line, col);
}

/* positionTicks of node id: the sorted ticks from *t on that belong to it, one entry per line */
static void position_ticks(struct cpprof *c, uint32_t id, size_t *t, FILE *out)
{
	if (*t >= c->nticks || c->ticks[*t].node != id)
		return;
	fputs(",\"positionTicks\":[", out);
	bool first = true;
	while (*t < c->nticks && c->ticks[*t].node == id) {
		int32_t line = c->ticks[*t].line;
		uint64_t count = 0;
		for (; *t < c->nticks && c->ticks[*t].node == id && c->ticks[*t].line == line; ++*t)
			count += c->ticks[*t].count;
		fprintf(out, "%s{\"line\":%d,\"ticks\":%llu}", first ? "" : ",", line,
			(unsigned long long)count);
		first = false;
	}
	fputc(']', out);
}

static void write_nodes(struct cpprof *c, FILE *out)
{
	if (c->nticks > 1) /* (qsort on NULL is undefined even for 0 elements) */
		qsort(c->ticks, c->nticks, sizeof(*c->ticks), cmp_tick);
	size_t t = 0;
	fputs("{\"nodes\":[", out);
	for (uint32_t id = 1; id < c->n; id++) {
		const struct cpnode *n = &c->nodes[id];
		fprintf(out, "%s\n{\"id\":%u,", id > 1 ? "," : "", id);
		call_frame(c, n, out);
		fprintf(out, ",\"hitCount\":%llu", (unsigned long long)n->hits);
		if (n->first_child) {
			fputs(",\"children\":[", out);
			for (uint32_t k = n->first_child; k; k = c->nodes[k].next_sibling)
				fprintf(out, "%u%s", k, c->nodes[k].next_sibling ? "," : "");
			fputc(']', out);
		}
		position_ticks(c, id, &t, out);
		fputc('}', out);
	}
	fputs("]", out);
}

/* An untimed profile's samples (profile.untimed: no time order): each stack's leaf repeated
 * as often as it was sampled, one sampling period apart, written as they are made (no memory
 * per sample). */
static void write_untimed_samples(const struct profile *p, uint32_t ti, const uint32_t *leaf,
				  FILE *out)
{
	uint64_t start = profile_start_ns(p) / 1000, n = p->threads[ti].samples;
	long long period_us = p->meta.rate_hz > 0 ? (long long)(1e6 / p->meta.rate_hz + 0.5) : 10000;
	fprintf(out, ",\n\"startTime\":%llu,\"endTime\":%llu,\n\"samples\":[",
		(unsigned long long)start, (unsigned long long)(start + n * (uint64_t)period_us));
	bool first = true;
	for (uint32_t pn = 1; pn < p->nnodes; pn++) {
		if (!leaf[pn])
			continue;
		for (uint64_t i = 0; i < p->nodes[pn].self; i++) {
			fprintf(out, "%s%u", first ? "" : ",", leaf[pn]);
			first = false;
		}
	}
	fputs("],\n\"timeDeltas\":[", out);
	for (uint64_t i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? "," : "", period_us);
	fputs("]}\n", out);
}

/* The samples in time order, from the profile's records. */
static void write_timed_samples(const struct profile *p, uint32_t ti, const uint32_t *leaf,
				FILE *out)
{
	uint64_t start = profile_start_ns(p), t = p->first_ns, prev = start;
	fprintf(out, ",\n\"startTime\":%llu,\"endTime\":%llu,\n\"samples\":[",
		(unsigned long long)(start / 1000), (unsigned long long)(profile_end_ns(p) / 1000));
	struct strbuf deltas;
	sb_init(&deltas);
	bool first = true;
	for (size_t i = 0; i < p->nrecs; i++) {
		t += (uint64_t)((int64_t)p->recs[i].dt_us * 1000);
		uint32_t pn = p->recs[i].node;
		if (p->nodes[pn].owner != ti || !leaf[pn])
			continue;
		fprintf(out, "%s%u", first ? "" : ",", leaf[pn]);
		/* samples of one thread come in order; a record a CPU delivered late counts 0 µs */
		long long dt = (long long)(t / 1000) - (long long)(prev / 1000);
		sb_printf(&deltas, "%s%lld", first ? "" : ",", dt > 0 ? dt : 0);
		prev = t > prev ? t : prev;
		first = false;
	}
	fprintf(out, "],\n\"timeDeltas\":[%s]}\n", deltas.s ? deltas.s : "");
	sb_free(&deltas);
}

int write_cpuprofile(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	long ti = profile_find_thread(p, wo->thread);
	if (ti < 0) {
		fprintf(stderr, "v8walk: no thread %s in the profile (--thread takes a tid or a role such "
				"as main or worker)\n", wo->thread ? wo->thread : "main");
		return -1;
	}
	if (p->untimed && p->threads[ti].samples > CPUPROFILE_UNTIMED_MAX) {
		fprintf(stderr, "v8walk: a .cpuprofile lists every sample, and %llu are more than the "
			"%llu it writes: narrow the range or the filter, or write pprof, speedscope, "
			"svg, folded or a tree, which hold one record per distinct stack\n",
			(unsigned long long)p->threads[ti].samples,
			(unsigned long long)CPUPROFILE_UNTIMED_MAX);
		return -1;
	}
	struct cpprof c;
	memset(&c, 0, sizeof(c));
	c.p = p;
	u64map_init(&c.child_of, 0);
	intern_init(&c.functions);
	intern_init(&c.scripts);
	sb_init(&c.key);
	c.of_pnode = xcalloc(p->nnodes + 1, sizeof(uint32_t));
	new_node(&c, 0, UINT32_MAX, NULL); /* [0] unused */
	new_node(&c, 0, UINT32_MAX, "(root)");
	uint32_t *leaf = xcalloc(p->nnodes + 1, sizeof(uint32_t));
	for (uint32_t pn = 1; pn < p->nnodes; pn++) {
		const struct pnode *nd = &p->nodes[pn];
		if (!nd->self || nd->owner != (uint32_t)ti || nd->frame == PNODE_PROCESS)
			continue;
		leaf[pn] = leaf_of(&c, pn);
		c.nodes[leaf[pn]].hits += nd->self;
		const struct frame *f = pnode_is_frame(nd) ? &p->frames[nd->frame] : NULL;
		if (f && frame_is_js(f) && f->line > 0 && p->lines == LINES_CURRENT &&
		    !c.nodes[leaf[pn]].pseudo) {
			XGROW(c.ticks, c.capticks, c.nticks + 1);
			c.ticks[c.nticks++] = (struct tick){leaf[pn], f->line, nd->self};
		}
	}
	write_nodes(&c, out);
	if (p->untimed)
		write_untimed_samples(p, (uint32_t)ti, leaf, out);
	else
		write_timed_samples(p, (uint32_t)ti, leaf, out);
	free(leaf);
	free(c.of_pnode);
	free(c.nodes);
	u64map_free(&c.child_of);
	free(c.ticks);
	intern_free(&c.functions);
	intern_free(&c.scripts);
	sb_free(&c.key);
	return ferror(out) ? -1 : 0;
}
