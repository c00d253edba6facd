/* wasm.c — a wasm frame's module (wasm.h): frame → instance → WasmModuleObject → Script. */
#include "wasm.h"

#include "../mem/memsrc.h"

enum {
	WASM_INSTANCE_FIRST_PUSHED = -16, /* TYPED_FRAME_PUSHED_VALUE_OFFSET(0) */
	INSTANCE_SCAN_BYTES = 640,        /* V8 11's raw fields come before module_object */
	MODULE_SCAN_BYTES = 128,
	SCAN_CANDIDATES = 32,             /* heap-object-looking words whose type is read, at most */
};

/* The field of obj at *off holding a heap object of type `type`; when *off is not known yet (or
 * no longer holds one), the first such field within `bytes` of obj's start, whose offset is kept. */
static uint64_t typed_field(const struct v8_heap *h, uint64_t obj, int32_t *off, int32_t bytes,
			    enum v8_item type)
{
	uint64_t v;
	if (*off && v8_field(h, obj, *off, &v) && v8_is(h, v, type))
		return v;
	uint64_t words[INSTANCE_SCAN_BYTES / 8];
	int32_t n = bytes / 8;
	/* an object near the end of mapped memory: shorter reads */
	while (n > 4 && !v8_read_obj(h, obj, 0, words, (size_t)n * 8))
		n /= 2;
	if (n <= 4)
		return 0;
	int tried = 0;
	for (int32_t i = 1; i < n && tried < SCAN_CANDIDATES; i++) { /* word 0 is the map */
		if (!v8_is_heap_object(words[i]) || words[i] == obj)
			continue;
		tried++;
		if (v8_is(h, words[i], type)) {
			*off = i * 8;
			return words[i];
		}
	}
	return 0;
}

/* Is field off of obj still v? */
static bool field_is(const struct v8_heap *h, uint64_t obj, int32_t off, uint64_t v)
{
	uint64_t now;
	return v8_field(h, obj, off, &now) && now == v;
}

uint64_t wasm_frame_script(const struct v8_heap *h, uint64_t fp, struct wasm_modules *w)
{
	uint64_t slot;
	if (!v8_has(h->L, L_T_WASM_MODULE_OBJECT) || !v8_has(h->L, L_T_SCRIPT) ||
	    !mem_read_u64(h->mem, fp + WASM_INSTANCE_FIRST_PUSHED, &slot) || !v8_is_heap_object(slot))
		return 0;
	for (unsigned i = 0; i < WASM_RECENT; i++)
		if (w->recent[i].slot == slot) {
			if ((slot == w->recent[i].instance || field_is(h, slot, w->instance_off, w->recent[i].instance)) &&
			    field_is(h, w->recent[i].instance, w->module_off, w->recent[i].module) &&
			    field_is(h, w->recent[i].module, w->script_off, w->recent[i].script))
				return w->recent[i].script;
			w->recent[i].slot = 0; /* moved or reused: looked up again */
			break;
		}
	/* V8 12 on: the frame holds the trusted half of the instance */
	uint64_t instance = slot;
	if (v8_has(h->L, L_T_WASM_INSTANCE_OBJECT) && !v8_is(h, slot, L_T_WASM_INSTANCE_OBJECT))
		instance = typed_field(h, slot, &w->instance_off, INSTANCE_SCAN_BYTES, L_T_WASM_INSTANCE_OBJECT);
	uint64_t module = instance ? typed_field(h, instance, &w->module_off, INSTANCE_SCAN_BYTES,
						 L_T_WASM_MODULE_OBJECT) : 0;
	uint64_t script = module ? typed_field(h, module, &w->script_off, MODULE_SCAN_BYTES, L_T_SCRIPT) : 0;
	if (script) {
		unsigned i = w->next++ % WASM_RECENT;
		w->recent[i].slot = slot;
		w->recent[i].instance = instance;
		w->recent[i].module = module;
		w->recent[i].script = script;
	}
	return script;
}
