/* raw_class.c — classifying a raw frame's code. */
#include "raw_class.h"

void raw_frame_classify(const struct v8_runtime *rt, struct addrspace *as, struct pc_class_cache *classes,
			const struct raw_frame *rf, struct pc_info *pi)
{
	bool exact = rf->how == FRAME_TOP || rf->how == FRAME_SIGNAL_RESUME;
	/* a return address may sit just past its function: classify pc - 1 */
	v8_classify_pc_cached(rt, as, classes, exact ? rf->pc : rf->pc - 1, pi);
	if (pi->cls == PC_NATIVE && rf->no_cfi && rt && !rt->have_blob && pi->mod &&
	    (size_t)(pi->mod - as->mods) == rt->mod)
		pi->cls = PC_BUILTIN;
}
