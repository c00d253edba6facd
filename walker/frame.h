/* frame.h — one frame of a mixed stack as every output sees it: JavaScript (named from V8's
 * heap), inlined JavaScript, native (ELF symbol), V8 builtin or typed frame, WebAssembly (by its
 * module), or unknown code. */
#ifndef V8WALK_FRAME_H
#define V8WALK_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "../v8/tier.h"

enum frame_kind {
	FK_NATIVE,     /* C/C++ code of an ELF module */
	FK_JS,         /* a JavaScript function's frame */
	FK_JS_INLINED, /* a JavaScript function inlined into an optimized frame */
	FK_JS_ASYNC,   /* an async function awaiting the stack below (not on the machine stack) */
	FK_BUILTIN,    /* a V8 embedded builtin (Builtins_*) */
	FK_V8_TYPED,   /* a V8 frame known by its frame type only */
	FK_UNKNOWN,    /* code nobody can name: "[unknown] (module+0xOFF)" */
	FK_ROOT,       /* process or thread label */
	FK_KERNEL,
	FK_TRUNCATED,  /* the walk stopped early here */
	FK_WASM,       /* WebAssembly code, known by its module: file is the module's url */
};

struct frame {
	uint8_t kind;        /* enum frame_kind */
	uint8_t tier;        /* enum js_tier (JS frames) */
	bool is_return;      /* pc is a return address (natives: look up pc - 1) */
	bool at_def;         /* JS: the current position is unknown; line/col show the definition */
	uint32_t name;       /* interned; 0 until named (natives are named after the target resumes) */
	uint32_t file;       /* interned script name (JS) or module basename (native); 0 = none */
	int32_t line, col;   /* 1-based position shown (0 = unknown) */
	int32_t def_line;    /* 1-based definition line of a JS function (0 = unknown) */
	int32_t def_col;     /* 1-based definition column: with file and def_line, the function's
			      * identity (minified code puts many functions on one line) */
	int32_t start_line, start_col; /* JS: where V8's own profiles place the function (its
					* StartPosition: the parameter list), 1-based, 0 = unknown */
	uint32_t fn_name;    /* JS: the function's own name (interned), whatever the receiver:
			      * `measure` where the call-site name is `Widget.measure` */
	uint64_t pc;
	uint64_t module_off; /* FK_UNKNOWN / FK_NATIVE: offset in the module file */
	/* JS frames: what source maps need (sourcemap/store.h, applied in stage 2) */
	uint64_t script;     /* the Script object's address (0 = none) */
	uint32_t gen_file;   /* 0, or file/line/col show the original position and this is the
			      * generated (running) script, with its position below */
	int32_t gen_line, gen_col;
};

/* A JavaScript function's frame: its own, inlined, or an async function awaiting. */
static inline bool frame_is_js(const struct frame *f)
{
	return f->kind == FK_JS || f->kind == FK_JS_INLINED || f->kind == FK_JS_ASYNC;
}

/* A frame of a script's code whose file is the script's name or url: JavaScript, or WebAssembly
 * (its module's url). */
static inline bool frame_in_script(const struct frame *f)
{
	return frame_is_js(f) || f->kind == FK_WASM;
}

/* The name of a JS frame's function itself (interned): its own name, as V8's profiler shows it
 * (`measure`, whatever the receiver; an awaiting function's `async measure`), unless a source map
 * named the original function; other frames: their name. */
static inline uint32_t frame_own_name(const struct frame *f)
{
	return frame_is_js(f) && f->fn_name && !f->gen_file ? f->fn_name : f->name;
}

#endif
