/* test_profile_paths.c — the aggregation's tree under stacks that share more or less of their
 * outer frames with the thread's previous one (profile.c walks the shared part by comparing
 * identities): every sample's leaf must spell its own stack back to its thread, and equal stacks
 * must share a leaf, whichever stacks came between. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profile/profile.h"

enum { NAMES = 5, MAX_DEPTH = 12, SAMPLES = 4000 };

/* The frames of the node's path from the thread node down, outermost first; the depth. */
static int path_of(const struct profile *p, uint32_t leaf, uint32_t *names, int max)
{
	int n = 0;
	for (uint32_t i = leaf; pnode_is_frame(&p->nodes[i]) && n < max; i = p->nodes[i].parent)
		names[n++] = p->frames[p->nodes[i].frame].name;
	for (int a = 0, b = n - 1; a < b; a++, b--) {
		uint32_t t = names[a];
		names[a] = names[b];
		names[b] = t;
	}
	return n;
}

Test(profile_paths, every_leaf_spells_its_stack)
{
	struct intern strings;
	intern_init(&strings);
	struct profile p;
	profile_init(&p, &strings, LINES_CURRENT);
	uint32_t names[NAMES];
	for (int i = 0; i < NAMES; i++) {
		char b[16];
		snprintf(b, sizeof(b), "f%d", i);
		names[i] = intern_str(&strings, b);
	}
	/* per thread, a stack that mutates: a few inner frames replaced, or all of it at times */
	static uint32_t stacks[SAMPLES][MAX_DEPTH]; /* outermost first */
	static int depth[SAMPLES], tid[SAMPLES];
	uint32_t cur[2][MAX_DEPTH];
	int curn[2] = {0, 0};
	srand(7);
	for (int s = 0; s < SAMPLES; s++) {
		int t = rand() % 2;
		int keep = rand() % 8 == 0 ? 0 : rand() % (curn[t] + 1);
		int n = keep + rand() % (MAX_DEPTH - keep + 1);
		for (int d = keep; d < n; d++)
			cur[t][d] = names[rand() % NAMES];
		curn[t] = n;
		memcpy(stacks[s], cur[t], sizeof(cur[t]));
		depth[s] = n;
		tid[s] = 100 + t;
		struct frame fr[MAX_DEPTH];
		memset(fr, 0, sizeof(fr));
		for (int d = 0; d < n; d++) {
			fr[n - 1 - d].kind = FK_NATIVE; /* innermost first */
			fr[n - 1 - d].name = stacks[s][d];
		}
		struct sample smp = {.time_ns = 1000000 + (uint64_t)s, .pid = 100, .tid = tid[s],
				     .frames = fr, .n = n};
		profile_add(&p, &smp);
	}
	cr_assert_eq(p.nrecs, SAMPLES);
	uint64_t *counted = calloc(p.nnodes, sizeof(*counted));
	for (int s = 0; s < SAMPLES; s++) {
		uint32_t got[MAX_DEPTH + 1];
		int n = path_of(&p, p.recs[s].node, got, MAX_DEPTH + 1);
		cr_assert_eq(n, depth[s], "sample %d: depth %d, its leaf's path %d", s, depth[s], n);
		cr_assert_eq(memcmp(got, stacks[s], sizeof(got[0]) * (size_t)n), 0, "sample %d: another stack", s);
		uint32_t thread = p.recs[s].node;
		while (pnode_is_frame(&p.nodes[thread]))
			thread = p.nodes[thread].parent;
		cr_assert_eq(p.threads[profile_find_thread(&p, tid[s] == 100 ? "100" : "101")].node, thread);
		for (uint32_t i = p.recs[s].node; pnode_is_frame(&p.nodes[i]); i = p.nodes[i].parent)
			counted[i]++;
		for (int o = 0; o < s; o++)
			if (tid[o] == tid[s] && depth[o] == depth[s] &&
			    !memcmp(stacks[o], stacks[s], sizeof(stacks[s][0]) * (size_t)depth[s])) {
				cr_assert_eq(p.recs[o].node, p.recs[s].node, "equal stacks %d and %d", o, s);
				break;
			}
	}
	for (size_t i = 1; i < p.nnodes; i++)
		if (pnode_is_frame(&p.nodes[i]))
			cr_assert_eq(p.nodes[i].total, counted[i], "node %zu: total %llu, samples through it %llu", i,
				     (unsigned long long)p.nodes[i].total, (unsigned long long)counted[i]);
	free(counted);
	profile_free(&p);
	intern_free(&strings);
}
