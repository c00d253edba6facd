/* bytecode.c — BytecodeArray and ByteArray reads. */
#include "bytecode.h"

#include <stdlib.h>

#include "../util/xalloc.h"

bool v8_byte_array_read(const struct v8_heap *h, uint64_t arr, size_t max, uint8_t **out,
			size_t *n)
{
	if (!v8_is_byte_array_like(h, arr))
		return false;
	int64_t len = v8_array_length(h, arr);
	if (len < 0 || (uint64_t)len > max)
		return false;
	uint8_t *buf = xmalloc(len ? (size_t)len : 1);
	/* ByteArray data follows the FixedArrayBase header, like FixedArray elements */
	if (!v8_read_obj(h, arr, h->L->v[L_FIXED_ARRAY_DATA], buf, (size_t)len)) {
		free(buf);
		return false;
	}
	*out = buf;
	*n = (size_t)len;
	return true;
}

bool v8_is_bytecode_array(const struct v8_heap *h, uint64_t obj)
{
	return v8_is_heap_object(obj) && v8_is(h, obj, L_T_BYTECODE_ARRAY);
}

int64_t bca_length(const struct v8_heap *h, uint64_t bca)
{
	uint64_t raw;
	if (!v8_field(h, bca, h->L->v[L_BCA_LENGTH], &raw) || !v8_is_smi(raw))
		return -1;
	int64_t len = v8_smi_value(raw);
	return len >= 0 && len <= V8_BYTECODE_MAX_BYTES ? len : -1;
}

int64_t bca_offset_from_frame(const struct v8_heap *h, uint64_t bca, int64_t frame_value)
{
	int64_t len = bca_length(h, bca);
	int64_t data = h->L->v[L_BCA_DATA] - 1;
	/* compared before subtracting: the value may be a live register's (r9), any 64 bits
	 * (INT64_MIN - data overflowed; found by fuzz/fuzz_v8_heap.c) */
	if (len < 0 || frame_value < data || frame_value - data >= len)
		return -1;
	return frame_value - data;
}

bool bca_identity(const struct v8_heap *h, uint64_t bca, uint64_t id[2])
{
	int64_t len = bca_length(h, bca);
	id[0] = (uint64_t)len;
	id[1] = 0;
	if (len < 0)
		return false;
	if (v8_has(h->L, L_BCA_SPT))
		v8_field(h, bca, h->L->v[L_BCA_SPT], &id[1]);
	return true;
}

uint64_t bca_position_table(const struct v8_heap *h, uint64_t bca)
{
	uint64_t t;
	if (!v8_has(h->L, L_BCA_SPT) || !v8_field(h, bca, h->L->v[L_BCA_SPT], &t))
		return 0;
	/* lazy source positions leave undefined here; V8 >= 12 keeps the handler table nearby */
	return v8_is_heap_object(t) && v8_is_byte_array_like(h, t) ? t : 0;
}

bool bca_bytecodes(const struct v8_heap *h, uint64_t bca, uint8_t **out, size_t *n)
{
	int64_t len = bca_length(h, bca);
	if (len <= 0)
		return false;
	uint8_t *buf = xmalloc((size_t)len);
	if (!v8_read_obj(h, bca, h->L->v[L_BCA_DATA], buf, (size_t)len)) {
		free(buf);
		return false;
	}
	*out = buf;
	*n = (size_t)len;
	return true;
}

uint64_t sfi_bytecode_array(const struct v8_heap *h, uint64_t sfi)
{
	const struct v8_layout *L = h->L;
	uint64_t d;
	if (!v8_has(L, L_SFI_FUNCTION_DATA) || !v8_field(h, sfi, L->v[L_SFI_FUNCTION_DATA], &d))
		return 0;
	for (int i = 0; i < 3 && v8_is_heap_object(d); i++) {
		enum v8_item next;
		if (v8_is_bytecode_array(h, d))
			return d;
		if (v8_is(h, d, L_T_BYTECODE_WRAPPER))
			next = L_BYTECODE_WRAPPER_BYTECODE;
		else if (v8_is(h, d, L_T_INTERPRETER_DATA))
			next = L_INTERPRETER_DATA_BYTECODE;
		else if (v8_is(h, d, L_T_CODE))
			next = L_CODE_DEOPT_DATA; /* baseline code keeps its bytecode there */
		else if (v8_is(h, d, L_T_BASELINE_DATA))
			next = L_BASELINE_DATA_DATA;
		else
			return 0;
		if (!v8_has(L, next) || !v8_field(h, d, L->v[next], &d))
			return 0;
	}
	return 0;
}
