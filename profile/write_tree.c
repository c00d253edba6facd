/* write_tree.c — text call-tree writer. */
#include "writers.h"

#include <stdlib.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"

struct tree_ctx {
	const struct profile *p;
	FILE *out;
	double min_percent;
	struct strbuf text;
};

static int cmp_total(const void *a, const void *b, void *ctx)
{
	const struct profile *p = ctx;
	uint64_t x = p->nodes[*(const uint32_t *)a].total, y = p->nodes[*(const uint32_t *)b].total;
	if (x != y)
		return x > y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static double pct(const struct profile *p, uint64_t n)
{
	return p->samples ? 100.0 * (double)n / (double)p->samples : 0.0;
}

static void print_line(struct tree_ctx *c, int depth, uint64_t count, const char *text)
{
	fprintf(c->out, "%8llu %6.2f%%  %*s%s\n", (unsigned long long)count, pct(c->p, count),
		2 * depth, "", text);
}

static void children(struct tree_ctx *c, uint32_t parent, int depth);

static void node(struct tree_ctx *c, uint32_t i, int depth)
{
	const struct profile *p = c->p;
	const struct pnode *nd = &p->nodes[i];
	sb_reset(&c->text);
	profile_node_text(p, i, false, &c->text);
	print_line(c, depth, nd->total, c->text.s);
	children(c, i, depth + 1);
}

/* Children sorted by count; those below the threshold are summed into one line. */
static void children(struct tree_ctx *c, uint32_t parent, int depth)
{
	const struct profile *p = c->p;
	size_t n = 0;
	for (uint32_t k = p->nodes[parent].first_child; k; k = p->nodes[k].next_sibling)
		n++;
	if (!n)
		return;
	uint32_t *kids = xmalloc(n * sizeof(*kids));
	n = 0;
	for (uint32_t k = p->nodes[parent].first_child; k; k = p->nodes[k].next_sibling)
		kids[n++] = k;
	if (n > 1)
		qsort_r(kids, n, sizeof(*kids), cmp_total, (void *)p);
	uint64_t folded = 0;
	size_t nfolded = 0;
	for (size_t k = 0; k < n; k++) {
		if (pct(p, p->nodes[kids[k]].total) < c->min_percent) {
			folded += p->nodes[kids[k]].total;
			nfolded++;
			continue;
		}
		node(c, kids[k], depth);
	}
	if (nfolded) {
		char buf[96];
		snprintf(buf, sizeof(buf), "[%zu more below %.2g%%]", nfolded, c->min_percent);
		print_line(c, depth, folded, buf);
	}
	free(kids);
}

int write_tree(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	struct tree_ctx c = {.p = p, .out = out, .min_percent = wo->min_percent};
	sb_init(&c.text);
	fprintf(out, "%8s %7s  %s\n", "SAMPLES", "PERCENT", "FRAME");
	children(&c, 0, 0);
	sb_free(&c.text);
	return ferror(out) ? -1 : 0;
}
