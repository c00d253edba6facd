/* prefetch.h — before the JS frames of a stack are decoded, copy the heap objects they will read
 * (functions, bytecode arrays and their position tables, receivers, their maps,
 * SharedFunctionInfos) in two batched reads instead of dozens of small
 * ones: on a live target that is one process_vm_readv per batch while the thread is stopped. */
#ifndef V8WALK_PREFETCH_H
#define V8WALK_PREFETCH_H

#include "../symtab/addrspace.h"
#include "../v8/runtime.h"
#include "../mem/memsrc.h"
#include "unwind.h"

enum { PREFETCH_MAX_OBJECTS = 512 };

/* The heap objects (untagged addresses) a prefetch copied whole, receivers aside: what a decode
 * that runs after the thread resumed is checked against (walker/validate.h). */
struct prefetched {
	uint64_t obj[PREFETCH_MAX_OBJECTS];
	size_t n;
};

void prefetch_js_objects(const struct v8_runtime *rt, struct addrspace *as, struct memsrc *mem,
			 const struct raw_frame *raw, int n, struct prefetched *out);

#endif
