/* async_frames.c — finding where a stack runs on the microtask queue and what awaits it. */
#include "async_frames.h"

#include <string.h>

#include "../v8/frames.h"
#include "raw_class.h"

enum {
	SFI_KINDS_MAX = 4096,
	CHECKPOINT_REACH = 3, /* raw frames from RunMicrotasks to the checkpoint that calls it */
	WRAPPER_REACH = 6,    /* raw frames from the checkpoint to the JS that asked for it */
};

/* Mangled-name prefixes of the queue's native functions (a prefix also covers a compiler's
 * split-off parts, such as RunMicrotasks.part.50 in Node 16 and 18). */
static const char *const run_prefixes[] = {"_ZN2v88internal14MicrotaskQueue13RunMicrotasks"};
static const char *const checkpoint_prefixes[] = {
    "_ZN2v88internal14MicrotaskQueue17PerformCheckpoint",
    "_ZN2v88internal14MicrotaskQueue25PerformCheckpointInternal",
    "_ZN2v815MicrotasksScope17PerformCheckpoint",
};
static const char *const wrapper_prefixes[] = {
    "_ZN2v88internal25FunctionCallbackArguments4Call",
    "_ZN2v88internal12_GLOBAL__N_119HandleApiCallHelper",
    "_ZN2v88internal21Builtin_HandleApiCall",
    "_ZN4node10task_queueL13RunMicrotasks",
};

void async_frames_init(struct async_frames *a)
{
	memset(a, 0, sizeof(*a));
	u64map_init(&a->sfi_kinds, SFI_KINDS_MAX);
}

void async_frames_free(struct async_frames *a)
{
	builtin_ids_free(&a->ids);
	u64map_free(&a->sfi_kinds);
}

struct span_ctx {
	struct async_frames *a;
	uint64_t table, table_size; /* builtin_metadata's symbol */
};

static void add_span(struct code_span *v, int *n, uint64_t lo, uint64_t size)
{
	if (*n < ASYNC_SPANS && size)
		v[(*n)++] = (struct code_span){lo, lo + size};
}

static bool has_prefix(const char *name, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

#define NPREFIX(a) (sizeof(a) / sizeof((a)[0]))

static bool collect_span(void *vctx, const char *name, uint64_t value, uint64_t size, int type, int shndx)
{
	(void)shndx;
	struct span_ctx *c = vctx;
	struct async_frames *a = c->a;
	/* (node's ~150,000 symbols: only V8's and node's own C++ names are looked at) */
	if (strncmp(name, "_ZN2v8", 6) != 0 && strncmp(name, "_ZN4node", 8) != 0)
		return true;
	if (size && builtin_ids_table_symbol(name)) {
		c->table = value;
		c->table_size = size;
	}
	if (type != 2 /* STT_FUNC */)
		return true;
	if (has_prefix(name, run_prefixes, NPREFIX(run_prefixes)))
		add_span(a->run, &a->nrun, value, size);
	else if (has_prefix(name, checkpoint_prefixes, NPREFIX(checkpoint_prefixes)))
		add_span(a->checkpoint, &a->ncheckpoint, value, size);
	else if (has_prefix(name, wrapper_prefixes, NPREFIX(wrapper_prefixes)))
		add_span(a->wrapper, &a->nwrapper, value, size);
	return true;
}

void async_frames_load(struct async_frames *a, const struct v8_runtime *rt, struct addrspace *as)
{
	if (a->loaded || !rt || rt->mod >= as->nmods)
		return;
	a->loaded = true;
	struct elf_image *img = addrspace_image(as, &as->mods[rt->mod]);
	if (!img)
		return;
	/* one pass over the symbols: the queue's functions and the builtins' table */
	struct span_ctx c = {.a = a};
	elf_image_foreach_sym(img, collect_span, &c);
	builtin_ids_load(&a->ids, img, c.table, c.table_size);
}

static bool in_spans(const struct code_span *v, int n, uint64_t vaddr)
{
	for (int i = 0; i < n; i++)
		if (vaddr >= v[i].lo && vaddr < v[i].hi)
			return true;
	return false;
}

/* Native code of V8's module within the spans. */
static bool native_in(const struct v8_runtime *rt, struct addrspace *as, const struct pc_info *pi,
		      const struct code_span *v, int n)
{
	return pi->cls == PC_NATIVE && pi->mod && (size_t)(pi->mod - as->mods) == rt->mod && in_spans(v, n, pi->vaddr);
}

/* A frame of the API call between a checkpoint and the JS that asked for it: a builtin (CEntry,
 * CallApiCallbackGeneric), V8's call helpers, node's runMicrotasks binding, or (a stripped
 * libnode) V8 code no symbol names. */
static bool api_wrapper(const struct async_frames *a, const struct v8_runtime *rt, struct addrspace *as,
			const struct pc_info *pi)
{
	if (pi->cls == PC_BUILTIN)
		return true;
	if (native_in(rt, as, pi, a->wrapper, a->nwrapper))
		return true;
	return pi->cls == PC_NATIVE && pi->mod && (size_t)(pi->mod - as->mods) == rt->mod && pi->mod->img &&
	       !pi->mod->img->has_symtab && !elf_image_func_at(pi->mod->img, pi->vaddr);
}

/* The job frame between the resumed code and RunMicrotasks (raw frame m): by its builtin's name,
 * or, where builtins have no names (a stripped libnode), two frames inside the entry frame that
 * the natives below m called (JSRunMicrotasksEntry → RunMicrotasks → the job). */
static int find_job(const struct v8_runtime *rt, struct addrspace *as, struct pc_class_cache *classes,
		    const struct raw_frame *raw, int m, int *entry)
{
	struct pc_info pi;
	int e = m - 1;
	while (e >= 0) {
		raw_frame_classify(rt, as, classes, &raw[e], &pi);
		if (pi.cls != PC_NATIVE)
			break;
		e--;
	}
	*entry = e;
	for (int i = e; i >= 0; i--) {
		raw_frame_classify(rt, as, classes, &raw[i], &pi);
		if (pi.role == BR_PROMISE_JOB)
			return i;
	}
	if (rt->have_blob || e < 2)
		return -1;
	for (int i = e; i > e - 3; i--) {
		raw_frame_classify(rt, as, classes, &raw[i], &pi);
		if (pi.cls != PC_BUILTIN)
			return -1;
	}
	return e - 2;
}

/* The stack's words a site's chain is read from (the stack copy's: nothing is read from the target
 * while the thread runs): the function and context slots of the frames the job called, innermost
 * last, and the job's first spill slots. */
static void site_words(const struct v8_heap *h, const struct raw_frame *raw, int job, int lowest,
		       struct async_site *site)
{
	site->nframes = 0;
	for (int k = job - 1; k >= lowest && site->nframes < ASYNC_SITE_FRAMES; k--) {
		uint64_t fn = 0, ctx = 0;
		if (!raw[k].fp_ok || !mem_read_u64(h->mem, raw[k].fp + (int64_t)h->L->v[L_FP_FUNCTION], &fn) ||
		    !mem_read_u64(h->mem, raw[k].fp + (int64_t)h->L->v[L_FP_CONTEXT], &ctx) || !v8_is_heap_object(ctx))
			fn = ctx = 0; /* a typed frame (its marker is a Smi) */
		site->fn[site->nframes] = fn;
		site->ctx[site->nframes++] = ctx;
	}
	site->nslots = 0;
	if (!raw[job].fp_ok)
		return;
	while (site->nslots < ASYNC_JOB_SLOTS &&
	       mem_read_u64(h->mem, raw[job].fp + (int64_t)h->L->v[L_FP_JOB_PROMISE] - 8 * site->nslots,
			    &site->slot[site->nslots]))
		site->nslots++;
}

bool async_site_find(struct async_frames *a, const struct v8_heap *h, const struct v8_runtime *rt,
		     struct addrspace *as, struct pc_class_cache *classes, const struct raw_frame *raw,
		     int nraw, const bool *has_js, struct async_site *site)
{
	if (!a->on || !rt)
		return false;
	async_frames_load(a, rt, as);
	if (!a->nrun || !v8_has(h->L, L_FP_JOB_PROMISE))
		return false;
	struct pc_info pi;
	int m = -1;
	for (int i = 1; i < nraw && m < 0; i++) {
		raw_frame_classify(rt, as, classes, &raw[i], &pi);
		if (native_in(rt, as, &pi, a->run, a->nrun))
			m = i;
	}
	int entry;
	int job = m > 0 ? find_job(rt, as, classes, raw, m, &entry) : -1;
	if (job < 1)
		return false;
	/* the resumed code: the innermost JS inside the job; the frames between it and the job (the
	 * await closure, an adaptor) go with the queue's */
	int from = job;
	while (from > 0 && !has_js[from - 1])
		from--;
	if (from == 0)
		return false;
	memset(site, 0, sizeof(*site));
	site->job = job;
	site->from = from;
	/* the checkpoint that ran the queue, and the API call from JS into it */
	int to = m, cp = -1;
	for (int i = m + 1; i < nraw && i <= m + CHECKPOINT_REACH; i++) {
		raw_frame_classify(rt, as, classes, &raw[i], &pi);
		if (!native_in(rt, as, &pi, a->checkpoint, a->ncheckpoint))
			break;
		cp = i;
	}
	if (cp < 0) {
		to = entry; /* no checkpoint known: the natives that entered the queue stay */
	} else {
		to = cp;
		for (int i = cp + 1; i < nraw && i <= cp + WRAPPER_REACH; i++) {
			if (has_js[i]) {
				to = i - 1;
				break;
			}
			raw_frame_classify(rt, as, classes, &raw[i], &pi);
			if (!api_wrapper(a, rt, as, &pi))
				break;
		}
	}
	site->to = to;
	a->st.sites++;
	site_words(h, raw, job, from < job - 1 ? from : job - 1, site);
	return true;
}

/* Where the chain starts, from the site's stack words: the generator an await closure among the
 * frames the job called resumes, else the pending promise in the job's spill slots (V8 9.4's
 * reject job keeps it one slot further). False when what the stack named is gone or moved: no
 * chain can be told (an empty one would be a lie). */
static bool site_start(struct async_walk *w, const struct async_site *site, uint64_t *gen, uint64_t *promise)
{
	const struct v8_heap *h = w->h;
	*gen = *promise = 0;
	/* a JS frame's function read now must still be a function with the stack's context (a young
	 * object a scavenge moved since the sample has a forwarding address there, and after two the
	 * memory holds something else) */
	for (int i = 0; i < site->nframes; i++) {
		uint64_t now;
		if (!site->ctx[i])
			continue;
		enum async_builtin kind = async_closure_kind(w, site->fn[i]);
		if (!async_word(w, site->fn[i], h->L->v[L_JSFUNC_CONTEXT], &now) || now != site->ctx[i])
			return false;
		if (kind == AB_AWAIT) {
			*gen = async_closure_generator(w, site->fn[i]);
			return *gen && !w->moved;
		}
	}
	for (int k = 0; k < site->nslots; k++) {
		uint64_t v = site->slot[k];
		if (!v8_is_heap_object(v) || !async_is_promise(w, v))
			continue;
		if (!async_promise_pending(w, v))
			return false; /* settled since */
		*promise = v;
		break;
	}
	return !w->moved;
}

/* dst holds src's words (never an overflowing trail: it cannot be checked) */
static void trail_copy(struct async_trail *dst, const struct async_trail *src)
{
	dst->n = src->n;
	dst->overflow = false;
	memcpy(dst->w, src->w, sizeof(src->w[0]) * src->n);
}

/* The previous chain, when it was read from the same stack words with the same room and the words
 * it was read from still hold (one batched read); -1 otherwise. */
static int recall(struct async_frames *a, const struct async_site *site, struct async_frame *out, int max)
{
	struct async_memo *m = &a->memo;
	if (!a->live || !m->valid || m->max != max || m->site.nframes != site->nframes ||
	    m->site.nslots != site->nslots ||
	    memcmp(m->site.fn, site->fn, sizeof(site->fn[0]) * (size_t)site->nframes) ||
	    memcmp(m->site.ctx, site->ctx, sizeof(site->ctx[0]) * (size_t)site->nframes) ||
	    memcmp(m->site.slot, site->slot, sizeof(site->slot[0]) * (size_t)site->nslots))
		return -1;
	if (!async_trail_holds(&m->trail, a->live)) {
		m->valid = false;
		return -1;
	}
	trail_copy(&a->trail, &m->trail);
	a->trail_read = true;
	memcpy(out, m->frames, sizeof(*out) * (size_t)m->n);
	a->st.reused++;
	return m->n;
}

/* Keep a chain just walked (live, all its words in the trail) for the next sample's recall. */
static void remember(struct async_frames *a, const struct async_site *site, const struct async_frame *f, int n,
		     int max)
{
	struct async_memo *m = &a->memo;
	m->valid = a->live && !a->trail.overflow && n <= ASYNC_MAX_FRAMES;
	if (!m->valid)
		return;
	m->site = *site;
	m->max = max;
	m->n = n;
	memcpy(m->frames, f, sizeof(*f) * (size_t)n);
	trail_copy(&m->trail, &a->trail);
}

int async_site_chain(struct async_frames *a, const struct v8_heap *h, const struct async_site *site,
		     struct async_frame *out, int max, enum async_outcome *how)
{
	a->trail.n = 0;
	a->trail.overflow = false;
	a->trail_read = false;
	*how = AO_CHAIN;
	int n = recall(a, site, out, max);
	if (n >= 0)
		return n;
	n = 0;
	struct async_walk w = {.h = h, .ids = &a->ids, .sfi_kinds = &a->sfi_kinds,
			       .trail = a->live ? &a->trail : NULL};
	enum async_end end = AE_NOBODY;
	uint64_t gen, promise;
	if (!site_start(&w, site, &gen, &promise)) {
		*how = w.moved ? AO_MOVED : AO_CHANGED;
	} else if (gen) {
		/* running at the sample; suspended again since is the same chain, closed is not */
		int64_t state = async_generator_state(&w, gen);
		if (state == -1 || state == INT64_MIN)
			*how = w.moved ? AO_MOVED : AO_CHANGED;
		else
			n = async_chain_of_generator(&w, gen, out, max, &end);
	} else if (promise) {
		n = async_chain_from_promise(&w, promise, out, max, &end);
	}
	a->st.reads += w.reads;
	if (*how == AO_CHAIN && (end == AE_MOVED || w.moved))
		*how = AO_MOVED;
	/* a live process: an awaiter found running, an object of the wrong type or a settled promise
	 * (one of the chain's functions ended since the sample) is a race with the program, not the
	 * chain at the sample */
	else if (*how == AO_CHAIN && (end == AE_BAD || end == AE_SETTLED) && a->live)
		*how = AO_CHANGED;
	if (*how != AO_CHAIN)
		a->memo.valid = false;
	else
		remember(a, site, out, n, max);
	return *how == AO_CHAIN ? n : 0;
}

enum async_outcome async_frames_check(struct async_frames *a, enum async_outcome how, int nframes)
{
	/* (a reused chain's words were read just now: unless frames were named since, once is enough) */
	if (how == AO_CHAIN && a->live && !(a->trail_read && nframes == 0) && !async_trail_holds(&a->trail, a->live))
		how = AO_CHANGED;
	if (how != AO_CHAIN)
		a->memo.valid = false;
	a->trail_read = false;
	if (how == AO_MOVED)
		a->st.moved++;
	else if (how == AO_CHANGED)
		a->st.changed++;
	else {
		a->st.chains++;
		a->st.frames += (unsigned long)nframes;
	}
	return how;
}
