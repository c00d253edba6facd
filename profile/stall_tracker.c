/* stall_tracker.c — gathering each stall's samples into its report (stall_tracker.h). */
#include "stall_tracker.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "frame_text.h"

/* How many distinct innermost JS functions, and naming frames, a stall keeps count of: beyond,
 * the rest are counted in their class only. */
enum { FN_MAX = 64, NAMES_MAX = 32 };

struct name_count {
	uint32_t name;
	unsigned long n;
};

struct open_stall {
	struct stall_report r;
	struct profile prof;
	uint64_t began_before_ns; /* sampling began with the loop outside its wait: then (else 0) */
	struct u64map fn_index;   /* interned function key → index + 1 into fns */
	struct stall_fn_count fns[FN_MAX];
	struct frame chains[FN_MAX][STALL_CHAIN_MAX];
	int nchains[FN_MAX];
	int nfns;
	struct name_count names[STALL_CLASSES][NAMES_MAX];
	int nnames[STALL_CLASSES];
};

void stall_tracker_init(struct stall_tracker *t, struct intern *strings, enum line_mode lines,
			stall_report_fn report, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->strings = strings;
	t->lines = lines;
	t->report = report;
	t->ctx = ctx;
}

static void close_stall(struct open_stall *o)
{
	profile_free(&o->prof);
	u64map_free(&o->fn_index);
	free(o);
}

void stall_tracker_free(struct stall_tracker *t)
{
	for (size_t i = 0; i < t->nopen; i++)
		close_stall(t->open[i]);
	free(t->open);
	memset(t, 0, sizeof(*t));
}

static long find_open(const struct stall_tracker *t, pid_t pid)
{
	for (size_t i = 0; i < t->nopen; i++)
		if (t->open[i]->r.pid == pid)
			return (long)i;
	return -1;
}

static struct open_stall *new_open(struct stall_tracker *t, pid_t pid, uint64_t start_ns)
{
	struct open_stall *o = xcalloc(1, sizeof(*o));
	o->r.pid = pid;
	o->r.start_ns = start_ns;
	profile_init(&o->prof, t->strings, t->lines);
	u64map_init(&o->fn_index, 0);
	XGROW(t->open, t->capopen, t->nopen + 1);
	t->open[t->nopen++] = o;
	return o;
}

static void count_name(struct open_stall *o, enum stall_class c, uint32_t name)
{
	for (int i = 0; i < o->nnames[c]; i++)
		if (o->names[c][i].name == name) {
			o->names[c][i].n++;
			return;
		}
	if (o->nnames[c] < NAMES_MAX)
		o->names[c][o->nnames[c]++] = (struct name_count){name, 1};
}

static bool is_js(const struct frame *f)
{
	return f->kind == FK_JS || f->kind == FK_JS_INLINED;
}

/* A script's frame (not V8's JS builtins: no script); `own`: not node's own JavaScript either
 * (node:fs, node:internal/…), the application's. */
static bool is_script(const struct intern *strings, const struct frame *f, bool own)
{
	if (!is_js(f) || !f->file)
		return false;
	const char *file = intern_get(strings, f->file);
	return *file && (!own || strncmp(file, "node:", 5) != 0);
}

/* The innermost application function of the sample counted (node's own JavaScript or, without
 * either, a builtin's frame when no script has one), and the script frames from the innermost
 * kept the first time (`openSync (node:fs) < readPipe < …`). */
static void count_function(struct stall_tracker *t, struct open_stall *o, const struct sample *s)
{
	int first = -1, own = -1;
	for (int i = 0; i < s->n && own < 0; i++) {
		if (first < 0 && is_script(t->strings, &s->frames[i], false))
			first = i;
		if (is_script(t->strings, &s->frames[i], true))
			own = i;
	}
	int js = own >= 0 ? own : first;
	if (js < 0)
		return;
	struct strbuf key;
	sb_init(&key);
	frame_function_key(&s->frames[js], &key);
	uint32_t id = intern_str(t->strings, key.s ? key.s : "");
	sb_free(&key);
	uint64_t v;
	if (u64map_get(&o->fn_index, id, &v)) {
		o->fns[v - 1].samples++;
		return;
	}
	if (o->nfns == FN_MAX)
		return;
	int k = o->nfns++;
	u64map_put(&o->fn_index, id, (uint64_t)k + 1);
	o->fns[k] = (struct stall_fn_count){.frame = s->frames[js], .samples = 1};
	for (int i = first; i < s->n && o->nchains[k] < STALL_CHAIN_MAX; i++)
		if (is_script(t->strings, &s->frames[i], false))
			o->chains[k][o->nchains[k]++] = s->frames[i];
}

static void report_and_close(struct stall_tracker *t, size_t i);

/* The open stall of process pid's iteration that began at start_ns. One of another iteration is
 * closed first: reported if it had samples (its end record was lost: it ended when this one
 * began), dropped if it was only the mark of a loop seen outside its wait at the start. */
static struct open_stall *open_for(struct stall_tracker *t, pid_t pid, uint64_t start_ns)
{
	long i = find_open(t, pid);
	if (i >= 0) {
		struct open_stall *o = t->open[i];
		if (o->r.start_ns == start_ns)
			return o;
		if (o->r.samples) {
			o->r.duration_ns = start_ns > o->r.start_ns ? start_ns - o->r.start_ns : 0;
			report_and_close(t, (size_t)i);
		} else {
			close_stall(o);
			t->open[i] = t->open[--t->nopen];
		}
	}
	return new_open(t, pid, start_ns);
}

void stall_tracker_sample(struct stall_tracker *t, const struct sample *s, uint64_t start_ns)
{
	struct open_stall *o = open_for(t, s->pid, start_ns);
	o->r.process_name = s->process_name;
	o->r.container = s->container;
	o->r.samples++;
	profile_add(&o->prof, s);
	int named;
	enum stall_class c = stall_class_of(t->strings, s->frames, s->n, &named);
	o->r.classes[c]++;
	if (named >= 0)
		count_name(o, c, s->frames[named].name);
	count_function(t, o, s);
}

void stall_tracker_began_before(struct stall_tracker *t, pid_t pid, uint64_t since_ns)
{
	open_for(t, pid, since_ns)->began_before_ns = since_ns;
}

static int by_samples(const void *a, const void *b)
{
	const struct stall_fn_count *x = a, *y = b;
	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* The report of an open stall: its most frequent functions, names and chain. */
static void make_report(struct open_stall *o)
{
	struct stall_report *r = &o->r;
	int best = -1;
	for (int k = 0; k < o->nfns; k++)
		if (best < 0 || o->fns[k].samples > o->fns[best].samples)
			best = k;
	if (best >= 0) {
		r->nchain = o->nchains[best];
		memcpy(r->chain, o->chains[best], sizeof(r->chain[0]) * (size_t)r->nchain);
	}
	qsort(o->fns, (size_t)o->nfns, sizeof(o->fns[0]), by_samples);
	r->ntop = o->nfns < STALL_TOP_MAX ? o->nfns : STALL_TOP_MAX;
	memcpy(r->top, o->fns, sizeof(r->top[0]) * (size_t)r->ntop);
	for (int c = 0; c < STALL_CLASSES; c++) {
		unsigned long most = 0;
		for (int i = 0; i < o->nnames[c]; i++)
			if (o->names[c][i].n > most) {
				most = o->names[c][i].n;
				r->class_frame[c] = o->names[c][i].name;
			}
	}
	r->prof = &o->prof;
}

static void report_and_close(struct stall_tracker *t, size_t i)
{
	struct open_stall *o = t->open[i];
	o->r.began_before = o->began_before_ns && o->began_before_ns == o->r.start_ns;
	make_report(o);
	t->stalls++;
	t->samples += o->r.samples;
	t->total_ns += o->r.duration_ns;
	if (o->r.duration_ns > t->longest_ns)
		t->longest_ns = o->r.duration_ns;
	t->report(t->ctx, &o->r);
	close_stall(o);
	t->open[i] = t->open[--t->nopen];
}

void stall_tracker_end(struct stall_tracker *t, pid_t pid, uint32_t process_name, uint64_t start_ns,
		       uint64_t duration_ns)
{
	struct open_stall *o = open_for(t, pid, start_ns);
	o->r.process_name = process_name;
	o->r.duration_ns = duration_ns;
	report_and_close(t, (size_t)find_open(t, pid));
}

void stall_tracker_finish(struct stall_tracker *t, uint64_t now_ns)
{
	while (t->nopen) {
		struct open_stall *o = t->open[t->nopen - 1];
		if (!o->r.samples) { /* the loop was outside its wait at the start; no stall came */
			close_stall(o);
			t->nopen--;
			continue;
		}
		o->r.unfinished = true;
		o->r.duration_ns = now_ns > o->r.start_ns ? now_ns - o->r.start_ns : 0;
		report_and_close(t, t->nopen - 1);
	}
}
