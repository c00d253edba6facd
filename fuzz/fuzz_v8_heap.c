/* fuzz_v8_heap.c — libFuzzer harness: V8 heap objects over a synthetic heap (heap_input.h). The
 * input's header picks an object and a decoder: strings of every representation (UTF-8 and
 * code-unit walks), JSFunction and SharedFunctionInfo names, ScopeInfo, Scripts and their line
 * tables, deoptimization data (inlining), BytecodeArrays and their position tables, a whole
 * JS frame's positions (function, bytecode array and offset as the frame holds them), and a wasm
 * frame's module script. */
#include <stdlib.h>
#include <string.h>

#include "../v8/bytecode.h"
#include "../v8/frames.h"
#include "../v8/function.h"
#include "../v8/inlining.h"
#include "../v8/positions.h"
#include "../v8/scripts.h"
#include "../v8/strings.h"
#include "../v8/wasm.h"
#include "heap_input.h"

static bool count_units(void *ctx, const uint8_t *data, size_t units, bool two_byte)
{
	size_t *total = ctx;
	(void)data, (void)two_byte;
	*total += units;
	return true;
}

static void decode_function(struct fake_heap *fh, uint64_t obj, bool is_sfi, int64_t pos)
{
	struct intern names;
	struct script_cache scripts;
	struct function_cache funcs;
	intern_init(&names);
	script_cache_init(&scripts, &names);
	function_cache_init(&funcs, &names, &scripts);
	const struct v8_function *f = is_sfi ? function_of_sfi(&funcs, &fh->h, obj)
					     : function_of_jsfunction(&funcs, &fh->h, obj);
	if (f && f->script) {
		struct v8_script *s = script_get(&scripts, &fh->h, f->script);
		int32_t line, col;
		if (s)
			script_position(&scripts, &fh->h, s, pos, &line, &col);
	}
	function_cache_free(&funcs);
	script_cache_free(&scripts);
	intern_free(&names);
}

static void decode_script(struct fake_heap *fh, uint64_t obj, int64_t pos)
{
	struct intern names;
	struct script_cache scripts;
	intern_init(&names);
	script_cache_init(&scripts, &names);
	struct v8_script *s = script_get(&scripts, &fh->h, obj);
	int32_t line, col;
	if (s) {
		script_position(&scripts, &fh->h, s, pos, &line, &col);
		script_position(&scripts, &fh->h, s, pos / 2, &line, &col);
	}
	script_cache_free(&scripts);
	intern_free(&names);
}

static void decode_inlining(struct fake_heap *fh, uint64_t deopt, int64_t position)
{
	struct inlining_data d;
	deopt_outer_sfi(&fh->h, deopt);
	if (inlining_load(&fh->h, deopt, &d)) {
		struct inline_frame out[8];
		inlining_expand(&d, (uint64_t)position, out, 8);
	}
	inlining_free(&d);
}

static void decode_bytecode(struct fake_heap *fh, uint64_t bca, int64_t offset)
{
	uint8_t *bytes = NULL;
	size_t n = 0;
	if (v8_byte_array_read(&fh->h, bca, V8_BYTECODE_MAX_BYTES, &bytes, &n))
		free(bytes);
	bca_length(&fh->h, bca);
	bca_offset_from_frame(&fh->h, bca, offset);
	uint64_t table = bca_position_table(&fh->h, bca);
	if (v8_byte_array_read(&fh->h, table, V8_TABLE_MAX_BYTES, &bytes, &n))
		free(bytes);
	sfi_bytecode_array(&fh->h, bca);
	struct positions p;
	positions_init(&p);
	positions_bytecode_offset_position(&p, &fh->h, bca, offset);
	positions_free(&p);
}

static void decode_frame(struct fake_heap *fh, uint64_t fn, uint64_t bca, int64_t offset, bool top)
{
	struct positions p;
	positions_init(&p);
	struct v8_frame vf = {.kind = VF_JS, .function = fn, .bytecode_array = bca,
			      .bytecode_offset = (uint64_t)offset};
	struct regset regs = {0};
	reg_set(&regs, REG_V8_BYTECODE_ARRAY, bca);
	reg_set(&regs, REG_V8_BYTECODE_OFFSET, (uint64_t)offset);
	struct js_site site = {.pc = (uint64_t)offset, .top = top, .pc_in_frame = true,
			       .in_handler = top, .regs = top ? &regs : NULL};
	struct js_position out[8];
	js_frame_positions(&p, &fh->h, &vf, &site, out, 8);
	positions_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fake_heap fh;
	static bool ready;
	if (!ready) {
		heap_input_init(&fh);
		ready = true;
	}
	struct heap_input_header hd;
	if (size < sizeof(hd))
		return 0;
	memcpy(&hd, data, sizeof(hd));
	heap_input_load(&fh, data + sizeof(hd), size - sizeof(hd));
	uint64_t base = heap_input_region(&fh);
	uint64_t root = base + hd.root, aux = base + hd.aux, aux2 = base + hd.aux2;
	struct strbuf out;
	sb_init(&out);
	switch (hd.op % 10) {
	case 0:
		v8_string_utf8(&fh.h, root, V8_NAME_MAX_UNITS, &out);
		break;
	case 1: {
		size_t total = 0;
		int64_t len = v8_string_length(&fh.h, root);
		if (len > 0)
			v8_string_walk(&fh.h, root, (size_t)hd.num % ((size_t)len + 1), (size_t)len,
				       count_units, &total);
		break;
	}
	case 2:
		decode_function(&fh, root, false, hd.num);
		break;
	case 3:
		decode_function(&fh, root, true, hd.num);
		break;
	case 4: {
		struct scope_info_parts parts;
		scope_info_decode(&fh.h, root, &parts);
		break;
	}
	case 5:
		decode_script(&fh, root, hd.num);
		break;
	case 6:
		decode_inlining(&fh, root, hd.num);
		break;
	case 7:
		decode_bytecode(&fh, root, hd.num);
		break;
	case 8:
		decode_frame(&fh, root, aux, hd.num, aux2 & 8);
		break;
	case 9: { /* a wasm frame at fp = aux (its instance at fp - 16), twice: the second through
		   * what the first kept */
		struct wasm_modules w = {0};
		uint64_t fp = aux & ~(uint64_t)7;
		if (wasm_frame_script(&fh.h, fp, &w) != wasm_frame_script(&fh.h, fp, &w))
			abort();
		break;
	}
	}
	sb_free(&out);
	return 0;
}
