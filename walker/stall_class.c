/* stall_class.c — the class of a stall's sample (stall_class.h). */
#include "stall_class.h"

#include <stdbool.h>
#include <string.h>

#include "../v8/runtime.h"
#include "gc_frames.h"

const char *stall_class_name(enum stall_class c)
{
	static const char *const names[STALL_CLASSES] = {"js", "gc", "native", "builtin"};
	return c < STALL_CLASSES ? names[c] : "?";
}

/* A frame of a script's JavaScript (V8's own JS builtins, RegExp.prototype.test and the like,
 * have no script: they are V8's, as its C++ builtins are). */
static bool is_script_js(const struct intern *strings, const struct frame *f)
{
	return (f->kind == FK_JS || f->kind == FK_JS_INLINED || f->kind == FK_WASM) && f->file &&
	       *intern_get(strings, f->file);
}

static bool has_prefix(const struct intern *strings, const struct frame *f, const char *prefix)
{
	return f->name && strncmp(intern_get(strings, f->name), prefix, strlen(prefix)) == 0;
}

/* Code of V8 itself: its builtins (JS ones too) and typed frames, JIT code no one named
 * (irregexp's compiled expressions among it), its C++ (v8::…). Node's bindings, libuv, libc,
 * addons and the kernel are not. */
static bool is_v8(const struct intern *strings, const struct frame *f)
{
	if (f->kind == FK_BUILTIN || f->kind == FK_V8_TYPED || f->kind == FK_UNKNOWN ||
	    f->kind == FK_JS || f->kind == FK_JS_INLINED)
		return true;
	return f->kind == FK_NATIVE && (has_prefix(strings, f, "v8::") || has_prefix(strings, f, "Builtins_"));
}

/* A builtin that is how V8 runs a script's unoptimized code, not a function the script called:
 * the interpreter's entries and bytecode handlers (Builtins_JumpLoopHandler) and the stubs
 * baseline (Sparkplug) code calls for its operations (Builtins_MultiplySmi_Baseline). A loop
 * that has not been optimized yet runs in them. */
static bool runs_script_code(const struct intern *strings, const struct frame *f)
{
	if (!f->name || !(f->kind == FK_BUILTIN || f->kind == FK_NATIVE))
		return false;
	enum builtin_role r = v8_builtin_role(intern_get(strings, f->name));
	return r == BR_INTERPRETER || r == BR_BASELINE_HELPER;
}

enum stall_class stall_class_of(const struct intern *strings, const struct frame *f, int n,
				int *named)
{
	*named = -1;
	if (frames_in_gc(strings, f, n))
		return STALL_GC;
	int js = 0;
	while (js < n && !is_script_js(strings, &f[js]))
		js++;
	if (js == n) { /* no JavaScript: node's or an addon's own C++ between callbacks */
		for (int i = 0; i < n; i++)
			if (f[i].kind == FK_NATIVE && f[i].name) {
				*named = i;
				break;
			}
		return STALL_NATIVE;
	}
	int own = 0; /* the interpreter's or baseline code's own stubs right above the script */
	while (own < js && runs_script_code(strings, &f[js - 1 - own]))
		own++;
	if (own == js)
		return STALL_JS;
	/* nearest the JavaScript first: the binding or builtin it called */
	for (int i = js - 1; i >= 0; i--)
		if (!is_v8(strings, &f[i]) && f[i].kind != FK_TRUNCATED) {
			*named = f[i].name ? i : -1;
			return STALL_NATIVE;
		}
	/* the builtin: past the stubs running the script and the trampoline into V8's C++
	 * (Builtins_CEntry_…) */
	for (int i = js - 1 - own; i >= 0 && *named < 0; i--)
		if (f[i].name && !has_prefix(strings, &f[i], "Builtins_CEntry"))
			*named = i;
	return STALL_BUILTIN;
}
