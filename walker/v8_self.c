/* v8_self.c — V8's CPU profiler's attribution rules (see v8_self.h). */
#include "v8_self.h"

#include <string.h>

bool v8self_interpreter_entry(const char *builtin, const struct v8_version *v)
{
	static const char *const always[] = {
	    "Builtins_InterpreterEntryTrampoline",
	    "Builtins_InterpreterEnterAtBytecode",
	    "Builtins_InterpreterEnterAtNextBytecode",
	};
	/* in V8 11.3's list, gone from 13.8's (12.4 is taken as 11.3) */
	static const char *const before_13[] = {
	    "Builtins_BaselineOrInterpreterEnterAtBytecode",
	    "Builtins_BaselineOrInterpreterEnterAtNextBytecode",
	};
	if (!builtin)
		return false;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strcmp(builtin, always[i]))
			return true;
	if (v && v8_version_key(v) >= V8V(13, 0, 0))
		return false;
	for (size_t i = 0; i < sizeof(before_13) / sizeof(before_13[0]); i++)
		if (!strcmp(builtin, before_13[i]))
			return true;
	return false;
}

/* V8's x86-64 patterns of frame setup and teardown, each matched at the pc or one byte before it
 * (tick-sample.cc IsNoFrameRegion) */
static const struct {
	uint8_t n;
	uint8_t bytes[4];
} no_frame_patterns[] = {
    {4, {0x55, 0x48, 0x89, 0xE5}}, /* pushq %rbp; movq %rsp,%rbp */
    {2, {0x5D, 0xC2}},             /* popq %rbp; ret N */
    {2, {0x5D, 0xC3}},             /* popq %rbp; ret */
};

bool v8self_no_frame_region(struct memsrc *mem, uint64_t pc)
{
	uint8_t at[4], before;
	if (!mem_read(mem, pc, at, sizeof(at)))
		return false;
	/* V8 reads the byte before the pc only when it is on the pc's page; across a page
	 * boundary it matches the pattern's rest at the pc, as this does */
	bool same_page = (pc & 0xfff) != 0;
	bool have_before = same_page && mem_read(mem, pc - 1, &before, 1);
	for (size_t i = 0; i < sizeof(no_frame_patterns) / sizeof(no_frame_patterns[0]); i++) {
		const uint8_t *p = no_frame_patterns[i].bytes;
		size_t n = no_frame_patterns[i].n;
		if (!memcmp(at, p, n))
			return true;
		if (!same_page ? !memcmp(at, p + 1, n - 1) : have_before && before == p[0] && !memcmp(at, p + 1, n - 1))
			return true;
	}
	return false;
}
