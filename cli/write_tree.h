/* write_tree.h — the text call tree: root first, one line per node `COUNT PERCENT FRAME`, indented
 * by depth, children sorted by count; subtrees under the threshold are folded into one line. */
#ifndef V8WALK_WRITE_TREE_H
#define V8WALK_WRITE_TREE_H

#include <stdio.h>

#include "profile.h"

int write_tree(const struct profile *p, double min_percent, FILE *out);

#endif
