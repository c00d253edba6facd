/* profile.h — aggregated samples: a call tree (trie) over interned frames, root first, with the
 * samples that ended at each node. Every output format is a writer over this structure. */
#ifndef V8WALK_PROFILE_H
#define V8WALK_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "../walker/frame.h"

enum line_mode { LINES_CURRENT, LINES_FUNCTION, LINES_NONE };

struct pnode {
	uint32_t frame;       /* index into frames */
	uint32_t parent;      /* node index (0 = the root sentinel) */
	uint32_t first_child, next_sibling; /* 0 = none */
	uint64_t self, total;
};

struct profile {
	struct intern *strings;
	struct intern frame_keys; /* canonical text of each distinct frame → index */
	struct frame *frames;     /* representative frame per index */
	size_t nframes, capframes;
	struct pnode *nodes;      /* nodes[0] is the root sentinel */
	size_t nnodes, capnodes;
	struct u64map children;   /* (parent << 32 | frame) → node index */
	enum line_mode lines;
	uint64_t samples;
};

void profile_init(struct profile *p, struct intern *strings, enum line_mode lines);
void profile_free(struct profile *p);
/* Add one sample: two root labels, then frames innermost first (as walked). */
void profile_add_sample(struct profile *p, uint32_t process_label, uint32_t thread_label,
			const struct frame *frames, int n, uint64_t count);
/* Children of a node, for writers: iterate first_child / next_sibling. */
static inline const struct pnode *profile_node(const struct profile *p, uint32_t i) { return &p->nodes[i]; }

#endif
