/* write_folded.c — folded-stack writer (flamegraph.pl, inferno, speedscope). */
#include "writers.h"

#include <stdlib.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"

int write_folded(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	(void)wo;
	/* iterative DFS; a node's path is rebuilt from its parents when it has samples of its own */
	uint32_t *stack = xmalloc(sizeof(uint32_t) * (p->nnodes + 1));
	uint32_t *path = xmalloc(sizeof(uint32_t) * (p->nnodes + 1));
	size_t sp = 0;
	struct strbuf line;
	sb_init(&line);
	for (uint32_t c = p->nodes[0].first_child; c; c = p->nodes[c].next_sibling)
		stack[sp++] = c;
	while (sp) {
		uint32_t i = stack[--sp];
		const struct pnode *nd = &p->nodes[i];
		for (uint32_t c = nd->first_child; c; c = p->nodes[c].next_sibling)
			stack[sp++] = c;
		if (!nd->self)
			continue;
		size_t depth = 0;
		for (uint32_t k = i; k; k = p->nodes[k].parent)
			path[depth++] = k;
		sb_reset(&line);
		while (depth--) {
			profile_node_text(p, path[depth], true, &line);
			if (depth)
				sb_addc(&line, ';');
		}
		fprintf(out, "%s %llu\n", line.s, (unsigned long long)nd->self);
	}
	sb_free(&line);
	free(stack);
	free(path);
	return ferror(out) ? -1 : 0;
}
