/* frames.h — what kind of V8 frame lives at a frame pointer: a JavaScript frame (a Context and a
 * JSFunction in the fixed slots) or a typed frame (a frame-type marker), per the frame-slot layout. */
#ifndef V8WALK_FRAMES_H
#define V8WALK_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

enum v8_frame_kind {
	VF_BAD,   /* neither: not a V8 frame, or unreadable */
	VF_JS,    /* context + JSFunction */
	VF_TYPED, /* marker: Entry, Exit, Stub, Internal, … */
};

struct v8_frame {
	enum v8_frame_kind kind;
	int32_t type;          /* VF_TYPED: frame type number */
	uint64_t function;     /* VF_JS: the JSFunction */
	uint64_t context;
	uint64_t bytecode_array; /* raw slot values (checked by the position decoder) */
	uint64_t bytecode_offset;
};

bool v8_read_frame(const struct v8_heap *h, uint64_t fp, struct v8_frame *out);
/* The type of the typed frame at fp, from its marker slot alone (false: not a typed frame, or
 * unreadable); reads no heap object, unlike v8_read_frame's check of a JS frame's function. */
bool v8_read_frame_type(const struct v8_heap *h, uint64_t fp, int32_t *type);
/* Is this a frame type through which JS is entered from C++ (Entry, ConstructEntry)? */
bool v8_frame_is_entry(const struct v8_layout *L, const struct v8_frame *f);
/* Is this frame type one that calls a constructor through `new` (Construct, FastConstruct)? */
bool v8_frame_type_is_construct(const struct v8_layout *L, int32_t type);

#endif
