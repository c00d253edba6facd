/* profile.c — the call-tree aggregation. */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void profile_init(struct profile *p, struct intern *strings, enum line_mode lines)
{
	memset(p, 0, sizeof(*p));
	p->strings = strings;
	p->lines = lines;
	intern_init(&p->frame_keys);
	u64map_init(&p->children, 0);
	XGROW(p->nodes, p->capnodes, 1);
	p->nnodes = 1; /* root sentinel */
}

void profile_free(struct profile *p)
{
	intern_free(&p->frame_keys);
	free(p->frames);
	free(p->nodes);
	u64map_free(&p->children);
	memset(p, 0, sizeof(*p));
}

/* The identity under which samples aggregate: kind, name, file and the chosen line. */
static uint32_t frame_index(struct profile *p, const struct frame *f)
{
	struct frame key = *f;
	bool js = f->kind == FK_JS || f->kind == FK_JS_INLINED;
	key.pc = 0;
	key.module_off = 0;
	key.script = 0;
	key.is_return = false;
	key.tier = 0;
	if (!js) {
		key.line = key.col = key.def_line = 0;
		if (f->kind == FK_NATIVE)
			key.file = 0;
	} else if (p->lines == LINES_FUNCTION) {
		key.line = f->def_line;
		key.col = 0;
	} else if (p->lines == LINES_NONE) {
		key.line = key.col = key.def_line = 0;
	} else {
		key.col = 0;
	}
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%u|%u|%u|%d", key.kind, key.name, key.file, key.line);
	size_t before = p->frame_keys.n;
	uint32_t idx = intern_n(&p->frame_keys, buf, (size_t)n);
	if (p->frame_keys.n != before) {
		XGROW(p->frames, p->capframes, idx + 1);
		p->frames[idx] = key;
		p->nframes = idx + 1;
	}
	return idx;
}

static uint32_t child(struct profile *p, uint32_t parent, uint32_t frame)
{
	uint64_t key = ((uint64_t)parent << 32 | frame) + 1;
	uint64_t v;
	if (u64map_get(&p->children, key, &v))
		return (uint32_t)v;
	XGROW(p->nodes, p->capnodes, p->nnodes + 1);
	uint32_t i = (uint32_t)p->nnodes++;
	struct pnode *nd = &p->nodes[i];
	memset(nd, 0, sizeof(*nd));
	nd->frame = frame;
	nd->parent = parent;
	nd->next_sibling = p->nodes[parent].first_child;
	p->nodes[parent].first_child = i;
	u64map_put(&p->children, key, i);
	return i;
}

static uint32_t root_frame(struct profile *p, uint32_t label)
{
	struct frame f;
	memset(&f, 0, sizeof(f));
	f.kind = FK_ROOT;
	f.name = label;
	return frame_index(p, &f);
}

void profile_add_sample(struct profile *p, uint32_t process_label, uint32_t thread_label,
			const struct frame *frames, int n, uint64_t count)
{
	uint32_t node = child(p, 0, root_frame(p, process_label));
	p->nodes[node].total += count;
	node = child(p, node, root_frame(p, thread_label));
	p->nodes[node].total += count;
	for (int i = n - 1; i >= 0; i--) {
		node = child(p, node, frame_index(p, &frames[i]));
		p->nodes[node].total += count;
	}
	p->nodes[node].self += count;
	p->nodes[0].total += count;
	p->samples += count;
}
