/* jit_names.c — perf-map names for JIT frames. */
#include "jit_names.h"

#include "../symtab/perfmap.h"

void name_jit_frames_from_perfmap(struct stackwalk *sw, struct frame *f, int n)
{
	for (int i = 0; i < n; i++) {
		bool unknown = f[i].kind == FK_UNKNOWN && f[i].name == sw->s_unknown_jit;
		if (!unknown && f[i].kind != FK_V8_TYPED)
			continue;
		/* every frame but the innermost holds a return address: look up the call itself */
		uint64_t pc = i > 0 && f[i].pc ? f[i].pc - 1 : f[i].pc;
		if (!unknown) {
			struct pc_info pi;
			v8_classify_pc_cached(sw->rt, sw->as, &sw->classes, pc, &pi);
			if (pi.cls != PC_JIT)
				continue;
		}
		uint32_t name = perfmap_lookup(sw->perfmap, pc);
		if (name)
			f[i].name = name;
	}
}
