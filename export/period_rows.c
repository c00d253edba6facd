/* period_rows.c — a period's profile as stacks and samples rows (period_rows.h). */
#include "period_rows.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../profile/frame_text.h"
#include "../util/xalloc.h"
#include "frame_parse.h"
#include "hash_index.h"
#include "rowbinary.h"
#include "service_name.h"
#include "stack_hash.h"

enum { STACK_DEPTH_MAX = 4096, SERVICE_NAMES_BUDGET = 1 << 20 };

void row_context_init(struct row_context *rc, const char *service_spec, double rate_hz)
{
	memset(rc, 0, sizeof(*rc));
	if (gethostname(rc->host, sizeof(rc->host) - 1) != 0)
		strcpy(rc->host, "unknown");
	rc->service_spec = service_spec;
	rc->ns_per_sample = rate_hz > 0 ? (uint64_t)(1e9 / rate_hz) : 0;
	intern_init(&rc->services);
	intern_set_budget(&rc->services, SERVICE_NAMES_BUDGET, "[v8walk: too many service names]");
	u64map_init(&rc->service_of_pid, SERVICE_CACHE_MAX);
}

void row_context_free(struct row_context *rc)
{
	intern_free(&rc->services);
	u64map_free(&rc->service_of_pid);
}

void period_batch_init(struct period_batch *b)
{
	memset(b, 0, sizeof(*b));
	sb_init(&b->stacks);
	sb_init(&b->samples);
	sb_init(&b->stalls);
}

void period_batch_free(struct period_batch *b)
{
	sb_free(&b->stacks);
	sb_free(&b->samples);
	sb_free(&b->stalls);
	free(b->stack_hashes);
	free(b->stack_ends);
	memset(b, 0, sizeof(*b));
}

static struct strview service_of(struct row_context *rc, pid_t pid)
{
	uint64_t id;
	if (!u64map_get(&rc->service_of_pid, (uint64_t)pid + 1, &id)) {
		struct strbuf name;
		sb_init(&name);
		service_name_of(pid, rc->service_spec, &name);
		id = intern_n(&rc->services, name.s ? name.s : "", name.len);
		u64map_put(&rc->service_of_pid, (uint64_t)pid + 1, id);
		sb_free(&name);
	}
	return intern_view(&rc->services, (uint32_t)id);
}

/* The frames of node's stack (outermost first) as folded text in `folded` and frame by frame in
 * `frames` (each frame's end offset in ends[]); returns the frame count. */
static size_t stack_text(const struct profile *p, uint32_t node, struct strbuf *folded,
			 size_t *ends, uint32_t *path)
{
	size_t depth = 0;
	for (uint32_t n = node; n && pnode_is_frame(&p->nodes[n]) && depth < STACK_DEPTH_MAX;
	     n = p->nodes[n].parent)
		path[depth++] = n;
	sb_reset(folded);
	for (size_t i = 0; i < depth; i++) {
		if (i)
			sb_addc(folded, ';');
		profile_node_text(p, path[depth - 1 - i], true, folded);
		ends[i] = folded->len;
	}
	return depth;
}

/* The stacks row: the hash, then each frame's folded text with the marker of a kind that text
 * does not say (frame_parse.h); path[] holds the nodes innermost first. */
static void add_stack_row(struct period_batch *b, const struct profile *p, uint64_t hash,
			  const struct strbuf *folded, const size_t *ends, const uint32_t *path,
			  size_t depth, struct strbuf *scratch)
{
	rb_put_u64(&b->stacks, hash);
	rb_put_varuint(&b->stacks, depth);
	for (size_t i = 0; i < depth; i++) {
		size_t start = i ? ends[i - 1] + 1 : 0;
		const char *marker = frame_kind_marker(p->frames[p->nodes[path[depth - 1 - i]].frame].kind);
		sb_reset(scratch);
		sb_addn(scratch, folded->s + start, ends[i] - start);
		if (marker)
			sb_add(scratch, marker);
		rb_put_string(&b->stacks, scratch->s ? scratch->s : "", scratch->len);
	}
	if (b->nstacks == b->capstacks) {
		b->capstacks = b->capstacks ? b->capstacks * 2 : 64;
		b->stack_hashes = xrealloc(b->stack_hashes, b->capstacks * sizeof(uint64_t));
		b->stack_ends = xrealloc(b->stack_ends, b->capstacks * sizeof(size_t));
	}
	b->stack_hashes[b->nstacks] = hash;
	b->stack_ends[b->nstacks++] = b->stacks.len;
}

void row_put_origin(struct strbuf *rows, struct row_context *rc, pid_t pid, struct strview container);

static void add_sample_row(struct period_batch *b, struct row_context *rc, const struct profile *p,
			   const struct profile_thread *t, uint64_t hash, uint64_t count)
{
	struct strbuf *s = &b->samples;
	rb_put_u32(s, b->bucket);
	row_put_origin(s, rc, t->pid, t->container ? intern_view(p->strings, t->container - 1)
						     : (struct strview){"", 0});
	rb_put_u32(s, (uint32_t)t->pid);
	rb_put_u32(s, (uint32_t)t->tid);
	struct strview process = intern_view(p->strings, t->process_name);
	struct strview thread = intern_view(p->strings, t->role);
	rb_put_string(s, process.s, process.len);
	rb_put_string(s, thread.s, thread.len);
	rb_put_u64(s, hash);
	rb_put_u64(s, count);
	rb_put_u64(s, count * rc->ns_per_sample);
	b->rows++;
	b->count += count;
}

/* One distinct stack of a profile: its leaf node, samples, hash, folded text (each frame's end
 * in ends[]) and nodes innermost first (path[], depth of them). */
struct stack_view {
	uint32_t node;
	uint64_t count, hash;
	const struct strbuf *folded;
	const size_t *ends;
	const uint32_t *path;
	size_t depth;
};

/* Every stack of p that ends samples, to fn. */
static void each_stack(const struct profile *p, void (*fn)(void *ctx, const struct stack_view *v),
		       void *ctx)
{
	struct strbuf folded;
	sb_init(&folded);
	size_t *ends = xmalloc(STACK_DEPTH_MAX * sizeof(size_t));
	uint32_t *path = xmalloc(STACK_DEPTH_MAX * sizeof(uint32_t));
	for (uint32_t n = 1; n < p->nnodes; n++) {
		const struct pnode *nd = &p->nodes[n];
		if (!nd->self || !pnode_is_frame(nd))
			continue;
		size_t depth = stack_text(p, n, &folded, ends, path);
		struct stack_view v = {.node = n, .count = nd->self,
				       .hash = stack_hash_of(folded.s, folded.len), .folded = &folded,
				       .ends = ends, .path = path, .depth = depth};
		fn(ctx, &v);
	}
	free(ends);
	free(path);
	sb_free(&folded);
}

struct fill {
	struct period_batch *b;
	struct row_context *rc;
	const struct profile *p;
	struct hash_index seen;
	struct strbuf scratch;
};

static void fill_stack(void *ctx, const struct stack_view *v)
{
	struct fill *f = ctx;
	uint64_t dummy;
	if (!hash_index_get(&f->seen, v->hash, &dummy)) {
		hash_index_put(&f->seen, v->hash, 1);
		add_stack_row(f->b, f->p, v->hash, v->folded, v->ends, v->path, v->depth, &f->scratch);
	}
	add_sample_row(f->b, f->rc, f->p, profile_node_thread(f->p, v->node), v->hash, v->count);
}

void period_batch_fill(struct period_batch *b, struct row_context *rc, const struct profile *p,
		       time_t bucket)
{
	b->bucket = (uint32_t)bucket;
	/* services are looked up again each period: a pid may have been reused meanwhile */
	u64map_clear(&rc->service_of_pid);
	struct fill f = {.b = b, .rc = rc, .p = p};
	hash_index_init(&f.seen, 0);
	sb_init(&f.scratch);
	each_stack(p, fill_stack, &f);
	sb_free(&f.scratch);
	hash_index_free(&f.seen);
}

struct hashes {
	void (*fn)(void *ctx, uint64_t hash, uint64_t count);
	void *ctx;
};

static void give_hash(void *ctx, const struct stack_view *v)
{
	struct hashes *h = ctx;
	h->fn(h->ctx, v->hash, v->count);
}

void profile_stack_hashes(const struct profile *p, void (*fn)(void *ctx, uint64_t hash, uint64_t count),
			  void *ctx)
{
	struct hashes h = {fn, ctx};
	each_stack(p, give_hash, &h);
}

void row_put_origin(struct strbuf *rows, struct row_context *rc, pid_t pid, struct strview container)
{
	struct strview service = service_of(rc, pid);
	rb_put_string(rows, rc->host, strlen(rc->host));
	rb_put_string(rows, service.s, service.len);
	/* the --label options, then the process's container (sampling/container_id.h) */
	bool contained = container.len != 0;
	rb_put_varuint(rows, rc->nlabels + contained);
	for (size_t i = 0; i < rc->nlabels; i++)
		rb_put_string(rows, rc->labels[i].key, strlen(rc->labels[i].key));
	if (contained)
		rb_put_string(rows, "container", strlen("container"));
	rb_put_varuint(rows, rc->nlabels + contained);
	for (size_t i = 0; i < rc->nlabels; i++)
		rb_put_string(rows, rc->labels[i].value, strlen(rc->labels[i].value));
	if (contained)
		rb_put_string(rows, container.s, container.len);
}
