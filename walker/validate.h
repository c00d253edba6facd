/* validate.h — a decode that ran after the thread resumed read names, scripts and position tables
 * from memory the program may have changed meanwhile (a GC that moved, compacted or flushed them).
 * Before its frames are trusted, the identity words of the copied objects (the bytecode arrays the
 * frames' slots name, the SharedFunctionInfos, tables and Code headers copied in the batch after
 * them) are read again from the live process, in one batch, and compared with the copy: a
 * SharedFunctionInfo's map, name and script, a BytecodeArray's map and position table, a Code
 * object's map. If they still match, nothing read through them moved during the decode (a GC that
 * moves an object rewrites every field pointing at it). A function or receiver that moved between
 * the stop and its batch is walker/prefetch.h prefetched_moved's to see; another object that did
 * fails the decode's own type checks. */
#ifndef V8WALK_VALIDATE_H
#define V8WALK_VALIDATE_H

#include <stdbool.h>

#include "../mem/memsrc.h"
#include "../v8/layout.h"
#include "../v8/map_types.h"
#include "prefetch.h"

struct validation {
	unsigned long runs;    /* decodes validated (they read the live process beyond the batches) */
	unsigned long checked; /* objects compared */
	unsigned long changed; /* objects whose identity words differed (or could not be read) */
};

/* Compare the identity words of the prefetched objects in `copy` (the stop's snapshot) with
 * `live`; returns true when none changed. `types` (optional) remembers root maps' types.
 * only[0..nonly) (untagged; NULL: all of them): the prefetched objects to compare — those of the
 * frames whose decode read beyond the copy (walker/prefetch.h prefetch_frame_objects): a frame
 * decoded from the batches alone read nothing later than they did. */
bool validate_prefetched(const struct v8_layout *L, struct map_types *types, struct memsrc *copy,
			 struct memsrc *live, const struct prefetched *p, const uint64_t *only,
			 size_t nonly, struct validation *v);

#endif
