/* inlining.h — the functions an optimized (Maglev, TurboFan) Code object inlined, from its
 * DeoptimizationData: the outermost SharedFunctionInfo (wrapped in a SharedFunctionInfoWrapper
 * from V8 12.6), the inlined SharedFunctionInfos (the first entries of the literal array, weak
 * references from V8 11.9) and the inlining positions ({SourcePosition, function id} records).
 * A source position whose inlining id is set expands into one frame per inlining level. The data
 * is loaded once per Code (inlining_load) and expanded without reading memory. */
#ifndef V8WALK_INLINING_H
#define V8WALK_INLINING_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

struct inline_frame {
	uint64_t sfi;
	int32_t script_offset; /* -1 = unknown */
	bool inlined;          /* false for the outermost function */
};

struct inline_record {
	uint64_t position;     /* where the inlined function was called (raw SourcePosition) */
	uint64_t sfi;          /* the inlined function (0 when its literal was unreadable) */
};

struct inlining_data {
	uint64_t outer;        /* outermost SharedFunctionInfo (0 = not deoptimization data) */
	struct inline_record *records; /* indexed by inlining id */
	int nrecords;
};

/* The outermost SharedFunctionInfo of an optimized Code's deoptimization data, or 0. */
uint64_t deopt_outer_sfi(const struct v8_heap *h, uint64_t deopt);
/* Read what expansion needs from deoptimization data; false (data zeroed) when unreadable. */
bool inlining_load(const struct v8_heap *h, uint64_t deopt, struct inlining_data *d);
void inlining_free(struct inlining_data *d);

/* Expand a raw SourcePosition of the Code into frames, innermost first; the last one is the
 * outermost function. Returns the number of frames (0 when there is no outer function). */
int inlining_expand(const struct inlining_data *d, uint64_t position, struct inline_frame *out,
		    int max);

#endif
