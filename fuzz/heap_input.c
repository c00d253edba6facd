/* heap_input.c — the synthetic heap of the heap harnesses (see heap_input.h). */
#include "heap_input.h"

#include <string.h>

enum { META_MAP_BYTES = 80 }; /* fh_init's first allocation */

void heap_input_init(struct fake_heap *fh)
{
	fh_init(fh);
	fh_set_item(&fh->L, L_T_BYTE_ARRAY, HI_T_BYTE_ARRAY);
	fh_set_item(&fh->L, L_T_BYTECODE_ARRAY, HI_T_BCA);
	fh_set_item(&fh->L, L_T_CODE, HI_T_CODE);
	fh_set_item(&fh->L, L_T_INSTRUCTION_STREAM, HI_T_IS);
	fh_set_item(&fh->L, L_T_WEAK_FIXED_ARRAY, HI_T_WEAK_FIXED_ARRAY);
	fh_set_item(&fh->L, L_T_WASM_INSTANCE_OBJECT, HI_T_WASM_INSTANCE);
	fh_set_item(&fh->L, L_T_WASM_MODULE_OBJECT, HI_T_WASM_MODULE);
}

uint64_t heap_input_region(const struct fake_heap *fh)
{
	return fh->start + META_MAP_BYTES;
}

size_t heap_input_load(struct fake_heap *fh, const uint8_t *bytes, size_t len)
{
	size_t room = fh->size - META_MAP_BYTES;
	if (len > room)
		len = room;
	if (len)
		memcpy(fh->mem + META_MAP_BYTES, bytes, len);
	fh->used = META_MAP_BYTES + len;
	return len;
}
