/* wasm.h — the WebAssembly module whose code a wasm frame runs, known by the Script V8 made for
 * it: its name is the module's url ("wasm://wasm/<hash>", or the url it was streamed from), as
 * V8's profiles and DevTools show it. Which function of the module runs is not told: V8 maps a pc
 * to its function through its C++ code tables (wasm::NativeModule), which node's postmortem
 * metadata does not describe. */
#ifndef V8WALK_WASM_H
#define V8WALK_WASM_H

#include <stdint.h>

#include "heap.h"

/* The path from a wasm frame to its module's Script: the frame's instance (V8 11: the
 * WasmInstanceObject; V8 12 on: its WasmTrustedInstanceData, whose instance_object leads to
 * it), its module_object, the module's script. No metadata gives these fields' offsets
 * (C++ macros in V8 11, Torque classes node's metadata leaves out later): each is found once by
 * the type of the object it holds, and kept. The instances seen last are kept with the objects
 * their path led to: a frame of one of them costs a read of each field on the path, still the
 * same. */
enum { WASM_RECENT = 8 };
struct wasm_modules {
	int32_t instance_off; /* instance_object in WasmTrustedInstanceData (0: not found yet) */
	int32_t module_off;   /* module_object in WasmInstanceObject */
	int32_t script_off;   /* script in WasmModuleObject */
	struct {
		uint64_t slot, instance, module, script;
	} recent[WASM_RECENT];
	unsigned next; /* the entry of recent[] the next new instance takes */
};

/* The Script of the module of the wasm frame at fp (a frame typed WasmFrame: its instance is the
 * first value it pushes, at fp-16 — WasmFrameConstants on x86-64 and arm64 alike), or 0. */
uint64_t wasm_frame_script(const struct v8_heap *h, uint64_t fp, struct wasm_modules *w);

#endif
