/* fuzz_v8_tables.c — libFuzzer harness: the byte-level tables V8 code objects carry: source
 * position tables (both code-offset encodings), VLQ numbers, Maglev safepoint tables and the
 * baseline PC → bytecode offset map (with a bytecode-size table and bytecodes from the input). */
#include <string.h>

#include "../v8/baseline.h"
#include "../v8/safepoints.h"
#include "../v8/spt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	uint32_t probe;
	memcpy(&probe, data, 4);
	uint8_t op = data[4] % 4;
	const uint8_t *p = data + 8;
	size_t n = size - 8;
	switch (op) {
	case 0:
	case 1: {
		struct spt_iter it;
		spt_iter_init(&it, p, n, op == 0 ? SPT_SIGNED : SPT_PACKED);
		while (spt_iter_next(&it))
			;
		uint64_t pos;
		spt_lookup(p, n, op == 0 ? SPT_SIGNED : SPT_PACKED, (int64_t)probe - 1, &pos);
		size_t at = 0;
		int64_t v;
		while (vlq_read_signed(p, n, &at, &v))
			;
		break;
	}
	case 2: {
		int idx;
		maglev_safepoints_size(p, n);
		maglev_deopt_index(p, n, probe, &idx);
		break;
	}
	case 3: {
		/* three rows of sizes (one per operand scale), then the table, then the bytecodes */
		size_t rows = data[5] ? (size_t)data[5] * 3 : 3;
		if (n < rows)
			return 0;
		struct bytecode_sizes bs = {0};
		if (bytecode_sizes_from(&bs, p, rows)) {
			size_t tn = (n - rows) / 2;
			const uint8_t *table = p + rows, *bc = table + tn;
			int64_t off;
			baseline_bytecode_offset(&bs, table, tn, bc, n - rows - tn, probe, &off);
			for (size_t at = 0; at < n - rows - tn && at < 4096;) {
				size_t s = bytecode_size_at(&bs, bc, n - rows - tn, at);
				if (!s)
					break;
				at += s;
			}
			bytecode_sizes_free(&bs);
		}
		break;
	}
	}
	return 0;
}
