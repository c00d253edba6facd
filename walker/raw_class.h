/* raw_class.h — what code a raw frame runs: v8_classify_pc of its pc (of the byte before a return
 * address), with V8's builtins recognised in a stripped libnode, which has no symbols for its
 * embedded blob: there they are the code of V8's module that no unwind information covers. */
#ifndef V8WALK_RAW_CLASS_H
#define V8WALK_RAW_CLASS_H

#include "../v8/runtime.h"
#include "unwind.h"

void raw_frame_classify(const struct v8_runtime *rt, struct addrspace *as, struct pc_class_cache *classes,
			const struct raw_frame *rf, struct pc_info *pi);

#endif
