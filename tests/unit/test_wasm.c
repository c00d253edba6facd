/* test_wasm.c — a wasm frame's module: the frame's instance (V8 11's WasmInstanceObject, or the
 * WasmTrustedInstanceData of V8 12 on, through its instance_object), its module_object, the
 * module's script; fields found by their objects' types among raw words that are not objects. */
#include <criterion/criterion.h>

#include "../../v8/wasm.h"
#include "fake_heap.h"

enum { FT_WASM_INSTANCE = 2098, FT_WASM_MODULE = 2100, FT_TRUSTED_DATA = 190, FT_JSOBJECT = 2058 };

/* A frame whose first pushed value (fp-16) is `slot`: its fp. */
static uint64_t wasm_frame(struct fake_heap *fh, uint64_t slot)
{
	uint64_t words[4] = {slot, fh_smi(4) >> 31 /* marker */, 0, 0};
	return fh_raw(fh, words, sizeof(words)) + 16;
}

/* A module whose script is named `url`; *script gets the Script. */
static uint64_t module_named(struct fake_heap *fh, const char *url, uint64_t *script)
{
	*script = fh_obj(fh, FT_SCRIPT, 64);
	fh_set(fh, *script, 16, fh_str1(fh, url)); /* class_Script__name */
	uint64_t m = fh_obj(fh, FT_WASM_MODULE, 64);
	fh_set(fh, m, 8, fh_obj(fh, FT_FIXED_ARRAY, 16));  /* properties */
	fh_set(fh, m, 16, fh_obj(fh, FT_FIXED_ARRAY, 16)); /* elements */
	fh_set(fh, m, 24, 0x7f0000001235);                 /* a Foreign's raw address */
	fh_set(fh, m, 40, *script);
	return m;
}

/* V8 11's WasmInstanceObject: a JSObject, then raw addresses and sizes (some odd, as a tagged
 * pointer would be), then module_object at 264. */
static uint64_t v8_11_instance(struct fake_heap *fh, uint64_t module)
{
	uint64_t inst = fh_obj(fh, FT_JSOBJECT, 400);
	fh_set(fh, inst, 8, fh_obj(fh, FT_FIXED_ARRAY, 16));
	for (int off = 24; off < 264; off += 8)
		fh_set(fh, inst, off, off % 16 ? 0x7ffe12340001 + (uint64_t)off : 0x10000);
	fh_set(fh, inst, 104, fh_str1(fh, "not the module")); /* an object of another type */
	fh_set(fh, inst, 264, module);
	return inst;
}

Test(wasm, a_v8_11_instance_leads_to_its_modules_script_past_raw_words)
{
	struct fake_heap fh;
	fh_init(&fh);
	fh_set_item(&fh.L, L_T_WASM_MODULE_OBJECT, FT_WASM_MODULE);
	uint64_t script, module = module_named(&fh, "wasm://wasm/445a96ba", &script);
	uint64_t fp = wasm_frame(&fh, v8_11_instance(&fh, module));
	struct wasm_modules w = {0};
	cr_assert_eq(wasm_frame_script(&fh.h, fp, &w), script);
	cr_assert_eq(w.module_off, 264);
	cr_assert_eq(w.script_off, 40);
	/* the same instance again: the frame slot and one read per field on the path */
	unsigned long reads = fh.reads;
	cr_assert_eq(wasm_frame_script(&fh.h, fp, &w), script);
	cr_assert_leq(fh.reads - reads, 3);
	/* another instance of another module: found at the offsets learned */
	uint64_t script2, module2 = module_named(&fh, "wasm://wasm/0badc0de", &script2);
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, v8_11_instance(&fh, module2)), &w), script2);
	fh_free(&fh);
}

Test(wasm, v8_12_on_the_frame_holds_the_trusted_data_whose_instance_object_leads_on)
{
	struct fake_heap fh;
	fh_init(&fh);
	fh_set_item(&fh.L, L_T_WASM_MODULE_OBJECT, FT_WASM_MODULE);
	fh_set_item(&fh.L, L_T_WASM_INSTANCE_OBJECT, FT_WASM_INSTANCE);
	uint64_t script, module = module_named(&fh, "wasm://wasm/445a96ba", &script);
	uint64_t inst = fh_obj(&fh, FT_WASM_INSTANCE, 64);
	fh_set(&fh, inst, 8, fh_obj(&fh, FT_FIXED_ARRAY, 16));
	fh_set(&fh, inst, 24, module);
	uint64_t data = fh_obj(&fh, FT_TRUSTED_DATA, 256);
	for (int off = 8; off < 152; off += 8)
		fh_set(&fh, data, off, off % 16 ? fh_obj(&fh, FT_FIXED_ARRAY, 16) : 0x10000);
	fh_set(&fh, data, 152, inst);
	uint64_t fp = wasm_frame(&fh, data);
	struct wasm_modules w = {0};
	cr_assert_eq(wasm_frame_script(&fh.h, fp, &w), script);
	cr_assert_eq(w.instance_off, 152);
	cr_assert_eq(w.module_off, 24);
	/* the instance the data points to changed (a new one in its place): followed again */
	uint64_t script2, module2 = module_named(&fh, "wasm://wasm/0badc0de", &script2);
	uint64_t inst2 = fh_obj(&fh, FT_WASM_INSTANCE, 64);
	fh_set(&fh, inst2, 24, module2);
	fh_set(&fh, data, 152, inst2);
	cr_assert_eq(wasm_frame_script(&fh.h, fp, &w), script2);
	fh_free(&fh);
}

Test(wasm, what_is_not_an_instance_gives_nothing)
{
	struct fake_heap fh;
	fh_init(&fh);
	fh_set_item(&fh.L, L_T_WASM_MODULE_OBJECT, FT_WASM_MODULE);
	struct wasm_modules w = {0};
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, fh_str1(&fh, "a string")), &w), 0);
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, fh_smi(7)), &w), 0);
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, 0xdead00000001), &w), 0, "unreadable");
	/* an instance without a module within reach */
	uint64_t inst = fh_obj(&fh, FT_JSOBJECT, 64);
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, inst), &w), 0);
	/* a module whose script field is no Script */
	uint64_t m = fh_obj(&fh, FT_WASM_MODULE, 64);
	fh_set(&fh, m, 40, fh_str1(&fh, "x"));
	uint64_t inst2 = fh_obj(&fh, FT_JSOBJECT, 64);
	fh_set(&fh, inst2, 16, m);
	cr_assert_eq(wasm_frame_script(&fh.h, wasm_frame(&fh, inst2), &w), 0);
	/* a frame pointer in unreadable memory */
	cr_assert_eq(wasm_frame_script(&fh.h, 0x10, &w), 0);
	fh_free(&fh);
}
