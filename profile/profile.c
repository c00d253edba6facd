/* profile.c — the aggregation: the stack table, the thread table and the time-ordered records. */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "frame_text.h"

void profile_init(struct profile *p, struct intern *strings, enum line_mode lines)
{
	memset(p, 0, sizeof(*p));
	p->strings = strings;
	p->lines = lines;
	intern_init(&p->frame_keys);
	u64map_init(&p->children, 0);
	u64map_init(&p->thread_index, 0);
	XGROW(p->nodes, p->capnodes, 1);
	memset(&p->nodes[0], 0, sizeof(p->nodes[0]));
	p->nnodes = 1; /* root sentinel */
}

void profile_untimed(struct profile *p)
{
	p->untimed = true;
}

void profile_free(struct profile *p)
{
	intern_free(&p->frame_keys);
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].path);
	free(p->frames);
	free(p->nodes);
	free(p->threads);
	free(p->recs);
	free(p->modules);
	u64map_free(&p->children);
	u64map_free(&p->thread_index);
	memset(p, 0, sizeof(*p));
}

/* The identity under which samples aggregate: kind, name, file and the chosen line, as six
 * words (was a formatted string: snprintf per frame per sample, 1.3 % of v8walk's CPU at
 * 999 Hz); key is the frame as the profile keeps it. */
static void frame_identity(const struct profile *p, const struct frame *f, struct frame *key,
			   uint32_t words[6])
{
	*key = *f;
	bool js = frame_is_js(f);
	key->pc = 0;
	key->module_off = 0;
	key->script = 0;
	key->is_return = false;
	key->tier = 0;
	if (!js) {
		key->line = key->col = key->def_line = key->start_line = key->start_col = 0;
		if (f->kind == FK_NATIVE)
			key->file = 0;
	} else if (p->lines == LINES_FUNCTION) {
		/* a function is one frame, whatever receiver it was called on: its script and start
		 * position say which, its own name (as V8's profiler names it) is shown, unless a
		 * source map gave the name of the original function */
		key->line = f->def_line;
		key->col = f->def_col;
		key->name = frame_own_name(f);
	} else if (p->lines == LINES_NONE) {
		key->line = key->col = key->def_line = key->def_col = key->start_line = key->start_col = 0;
	} else {
		/* the line running in one function: the function is part of the identity, or every
		 * `(anonymous)` of a minified script's line 1 would be one frame, named and placed
		 * (cpuprofile, pprof, speedscope) after whichever was seen first */
		key->col = 0;
	}
	bool by_function = js && p->lines != LINES_NONE;
	words[0] = key->kind;
	words[1] = key->name;
	words[2] = key->file;
	words[3] = (uint32_t)key->line;
	words[4] = by_function ? (uint32_t)key->def_line : 0;
	words[5] = by_function ? (uint32_t)key->def_col : 0;
}

/* The index of the frame with identity words (key and f: frame_identity's). */
static uint32_t frame_index(struct profile *p, const struct frame *f, struct frame *key,
			    const uint32_t words[6])
{
	size_t before = p->frame_keys.n;
	uint32_t idx = intern_n(&p->frame_keys, (const char *)words, sizeof(words[0]) * 6);
	if (p->frame_keys.n != before) {
		XGROW(p->frames, p->capframes, idx + 1);
		/* the first frame seen stands for all: its address, module and column (pprof) */
		key->pc = f->pc;
		key->module_off = f->module_off;
		key->tier = f->tier;
		key->col = p->lines == LINES_CURRENT ? f->col : p->lines == LINES_FUNCTION ? f->def_col : 0;
		if (f->kind == FK_NATIVE)
			key->file = f->file;
		p->frames[idx] = *key;
		p->nframes = idx + 1;
	}
	return idx;
}

/* The child of `parent` for `key` (a frame index, or a pid / tid under the root levels). */
static uint32_t child(struct profile *p, uint32_t parent, uint32_t key, uint32_t frame,
		      uint32_t owner)
{
	uint64_t map_key = ((uint64_t)parent << 32 | key) + 1;
	uint64_t v;
	if (u64map_get(&p->children, map_key, &v))
		return (uint32_t)v;
	XGROW(p->nodes, p->capnodes, p->nnodes + 1);
	uint32_t i = (uint32_t)p->nnodes++;
	struct pnode *nd = &p->nodes[i];
	memset(nd, 0, sizeof(*nd));
	nd->frame = frame;
	nd->parent = parent;
	nd->owner = owner;
	nd->next_sibling = p->nodes[parent].first_child;
	p->nodes[parent].first_child = i;
	u64map_put(&p->children, map_key, i);
	return i;
}

static uint32_t thread_of(struct profile *p, const struct sample *s)
{
	uint64_t key = ((uint64_t)(uint32_t)s->pid << 32 | (uint32_t)s->tid) + 1, v;
	if (u64map_get(&p->thread_index, key, &v)) {
		p->threads[v].role = s->thread_role;
		return (uint32_t)v;
	}
	XGROW(p->threads, p->capthreads, p->nthreads + 1);
	uint32_t i = (uint32_t)p->nthreads++;
	struct profile_thread *t = &p->threads[i];
	memset(t, 0, sizeof(*t));
	t->pid = s->pid;
	t->tid = s->tid;
	t->process_name = s->process_name;
	t->role = s->thread_role;
	t->container = s->container;
	uint32_t proc = child(p, 0, (uint32_t)s->pid, PNODE_PROCESS, i);
	t->node = child(p, proc, (uint32_t)s->tid, PNODE_THREAD, i);
	u64map_put(&p->thread_index, key, i);
	return i;
}

static void add_record(struct profile *p, uint32_t leaf, uint64_t time_ns)
{
	if (!p->nrecs)
		p->first_ns = p->last_ns = time_ns;
	int64_t dt = ((int64_t)time_ns - (int64_t)p->last_ns) / 1000;
	if (dt > INT32_MAX)
		dt = INT32_MAX;
	if (dt < INT32_MIN)
		dt = INT32_MIN;
	/* the clamped delta is what the records can say: keep last_ns in step with them */
	p->last_ns += (uint64_t)(dt * 1000);
	XGROW(p->recs, p->caprecs, p->nrecs + 1);
	p->recs[p->nrecs++] = (struct sample_rec){.node = leaf, .dt_us = (int32_t)dt};
}

void profile_add_weighted(struct profile *p, const struct sample *s, uint64_t weight)
{
	uint32_t ti = thread_of(p, s);
	p->threads[ti].samples += weight;
	uint32_t node = p->threads[ti].node;
	p->nodes[p->nodes[node].parent].total += weight;
	p->nodes[node].total += weight;
	struct profile_thread *t = &p->threads[ti];
	bool shared = true; /* so far the same frames as the thread's latest stack */
	size_t depth = 0;
	XGROW(t->path, t->cappath, (size_t)(s->n > 0 ? s->n : 1));
	for (int i = s->n - 1; i >= 0; i--, depth++) {
		struct frame key;
		uint32_t words[6];
		frame_identity(p, &s->frames[i], &key, words);
		struct path_step *step = &t->path[depth];
		shared = shared && depth < t->npath && !memcmp(step->words, words, sizeof(words));
		if (!shared) {
			uint32_t f = frame_index(p, &s->frames[i], &key, words);
			memcpy(step->words, words, sizeof(words));
			step->node = child(p, node, f, f, ti);
		}
		node = step->node;
		p->nodes[node].total += weight;
	}
	t->npath = depth;
	p->nodes[node].self += weight;
	p->nodes[0].total += weight;
	p->samples += weight;
	for (uint64_t i = 0; !p->untimed && i < weight; i++)
		add_record(p, node, s->time_ns);
}

void profile_add(struct profile *p, const struct sample *s)
{
	profile_add_weighted(p, s, 1);
}

void profile_sink(void *ctx, const struct sample *s)
{
	profile_add(ctx, s);
}

const struct profile_thread *profile_node_thread(const struct profile *p, uint32_t node)
{
	return node ? &p->threads[p->nodes[node].owner] : NULL;
}

void profile_node_text(const struct profile *p, uint32_t node, bool annotate, struct strbuf *out)
{
	const struct pnode *nd = &p->nodes[node];
	const struct profile_thread *t = profile_node_thread(p, node);
	if (nd->frame == PNODE_PROCESS) {
		append_sanitized(out, intern_get(p->strings, t->process_name), intern_len(p->strings, t->process_name));
		if (t->container)
			sb_printf(out, " [container=%s]", intern_get(p->strings, t->container - 1));
		sb_printf(out, " (%d)", (int)t->pid);
	} else if (nd->frame == PNODE_THREAD) {
		append_sanitized(out, intern_get(p->strings, t->role), intern_len(p->strings, t->role));
		sb_printf(out, " (%d)", (int)t->tid);
	} else {
		frame_text(p->strings, &p->frames[nd->frame], annotate, out);
	}
}

size_t profile_bytes(const struct profile *p)
{
	size_t keys = p->frame_keys.cap * sizeof(char *) + p->frame_keys.nslots * sizeof(uint32_t);
	for (size_t i = 0; i < p->frame_keys.n; i++)
		keys += intern_len(&p->frame_keys, (uint32_t)i) + 1;
	return p->caprecs * sizeof(*p->recs) + p->capnodes * sizeof(*p->nodes) +
	       p->capframes * sizeof(*p->frames) + p->capthreads * sizeof(*p->threads) +
	       p->children.cap * 2 * sizeof(uint64_t) + keys;
}

uint64_t profile_start_ns(const struct profile *p)
{
	if (p->meta.start_ns && (!p->nrecs || p->meta.start_ns <= p->first_ns))
		return p->meta.start_ns;
	return p->first_ns;
}

uint64_t profile_end_ns(const struct profile *p)
{
	if (p->meta.end_ns && p->meta.end_ns >= p->last_ns)
		return p->meta.end_ns;
	return p->last_ns;
}

long profile_find_thread(const struct profile *p, const char *spec)
{
	const char *role = spec ? spec : "main";
	char *end;
	long tid = spec ? strtol(spec, &end, 10) : 0;
	bool numeric = spec && *spec && !*end;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = &p->threads[i];
		if (numeric ? t->tid == tid : !strcmp(intern_get(p->strings, t->role), role))
			return (long)i;
	}
	return !spec && p->nthreads ? 0 : -1;
}

void profile_add_module(struct profile *p, const struct profile_module *m)
{
	XGROW(p->modules, p->capmodules, p->nmodules + 1);
	p->modules[p->nmodules++] = *m;
}

const struct profile_module *profile_module_at(const struct profile *p, pid_t pid, uint64_t pc)
{
	const struct profile_module *any = NULL;
	for (size_t i = 0; i < p->nmodules; i++) {
		const struct profile_module *m = &p->modules[i];
		if (pc < m->start || pc >= m->limit)
			continue;
		if (m->pid == pid)
			return m;
		any = any ? any : m;
	}
	return any;
}
