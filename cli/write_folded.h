/* write_folded.h — FlameGraph "folded" stacks: one line per distinct stack, `root;…;leaf COUNT`. */
#ifndef V8WALK_WRITE_FOLDED_H
#define V8WALK_WRITE_FOLDED_H

#include <stdio.h>

#include "profile.h"

int write_folded(const struct profile *p, FILE *out);

#endif
