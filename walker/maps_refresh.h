/* maps_refresh.h — keeping a live target's mappings current for the walker: after a walk that
 * reached code outside every known executable mapping (libraries loaded, JIT code space grown
 * or a program just started by launch mode), re-read /proc/PID/maps, at most once per interval,
 * so that the caller can walk again. */
#ifndef V8WALK_MAPS_REFRESH_H
#define V8WALK_MAPS_REFRESH_H

#include <stdbool.h>
#include <stdint.h>

#include "../symtab/addrspace.h"
#include "stackwalk.h"
#include "unwind.h"

struct maps_refresh {
	uint64_t min_interval_ns;
	uint64_t last_ns;
	unsigned long reloads;
};

void maps_refresh_init(struct maps_refresh *r, uint64_t min_interval_ns);
/* Does any of the walk's code addresses lie outside the executable mappings we know? */
bool walk_left_known_code(const struct addrspace *as, const struct raw_frame *raw, int nraw);
/* Re-read the maps if the walk left known code and the interval has passed; true when they
 * were re-read (walk again). */
bool maps_refresh_after_walk(struct maps_refresh *r, struct addrspace *as,
			     const struct raw_frame *raw, int nraw);
/* Re-read the maps if the interval has passed. */
bool maps_refresh_now(struct maps_refresh *r, struct addrspace *as);
/* stackwalk_capture, and once more after re-reading the maps when the walk reached code outside
 * every known mapping (and the interval has passed). */
int stackwalk_capture_fresh(struct stackwalk *sw, struct maps_refresh *r, const struct regset *regs,
			    struct memsrc *mem, const struct stack_bounds *bounds, struct frame *out,
			    int max, struct walk_stats *st);
/* The bounds of the stack mapping that holds sp, from the maps already read (no file is read:
 * fit for a stopped thread). */
bool stack_bounds_known(const struct addrspace *as, uint64_t sp, struct stack_bounds *b);
/* The bounds of the stack mapping that holds sp (re-reading the maps once if none does). */
bool stack_bounds_at(struct maps_refresh *r, struct addrspace *as, uint64_t sp,
		     struct stack_bounds *b);

#endif
