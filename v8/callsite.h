/* callsite.h — frame names and script locations spelled the way V8's Error.stack spells them
 * (call-site-info.cc SerializeJSStackFrame / AppendMethodCall / FormatEvalOrigin):
 *   "fn", "Type.fn", "Type.fn [as method]", "Type.<anonymous>", "new Fn", "async fn", "eval";
 * the type is the receiver's constructor name (JSReceiver::GetConstructorName), the method the
 * property of the receiver or its prototypes holding the function. Eval'd code is located as
 * "eval at outer (file:L:C), <anonymous>". The per-version differences in these rules are layout
 * items (STACK_*). Names are cached per (receiver map, function). */
#ifndef V8WALK_CALLSITE_H
#define V8WALK_CALLSITE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "function.h"
#include "positions.h"
#include "heap.h"
#include "scripts.h"

struct callsite {
	const struct v8_function *fn;
	uint64_t function;   /* the JSFunction (0 when not known, e.g. an inlined frame) */
	uint64_t receiver;   /* the receiver value (valid when receiver_known) */
	bool receiver_known;
	bool constructor;    /* called with `new` */
	bool async;          /* an async frame (a suspended async function awaiting) */
};

struct callsite_names {
	struct intern *strings;
	struct function_cache *funcs;
	struct script_cache *scripts;
	struct positions *positions; /* decoded position tables (eval origins) */
	struct u64map cache; /* key hash → index + 1 into keys/vals */
	struct callsite_key { uint64_t map, sfi; uint32_t flags; } *keys;
	uint32_t *vals;
	size_t n, cap;
	unsigned long hits, misses;
	struct u64map constructor_names; /* map → its constructor's name (0: none useful) */
};

void callsite_names_init(struct callsite_names *cn, struct intern *strings,
			 struct function_cache *funcs, struct script_cache *scripts,
			 struct positions *positions);
void callsite_names_free(struct callsite_names *cn);

/* The frame's name as Error.stack prints it (interned); "(anonymous)" where Error.stack prints
 * only a location. */
uint32_t callsite_name(struct callsite_names *cn, const struct v8_heap *h, const struct callsite *cs);

/* The location prefix of a function's script as Error.stack prints it: the script name, or for
 * eval'd code "eval at outer (file:L:C), <anonymous>"; 0 when the function has no script. */
uint32_t callsite_file(struct callsite_names *cn, const struct v8_heap *h,
		       const struct v8_function *fn);

/* Is this a function V8 keeps out of stack traces (a builtin closure that is not `native`)? */
bool callsite_hidden(const struct v8_heap *h, const struct v8_function *fn);

/* Helpers exposed for tests: the two Error.stack string rules, over counted bytes. */
bool callsite_is_identifier(const char *s, size_t len);
bool callsite_ends_with_method(const char *fn, size_t fn_len, const char *method, size_t method_len,
			       bool space_too);

#endif
