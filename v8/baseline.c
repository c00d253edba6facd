/* baseline.c — baseline PC → bytecode offset. */
#include "baseline.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "spt.h"

/* Prefix bytecodes (bytecodes.h: Wide, ExtraWide, DebugBreakWide, DebugBreakExtraWide; unchanged
 * since V8 6.8): the next bytecode's operands are scaled by 2 (scale index 1) or 4 (index 2). */
static int prefix_scale(uint8_t b)
{
	switch (b) {
	case 0: case 2: return 1;
	case 1: case 3: return 2;
	default: return 0;
	}
}

bool bytecode_sizes_from(struct bytecode_sizes *bs, const uint8_t *v, size_t total)
{
	memset(bs, 0, sizeof(*bs));
	/* the plausibility rule OTel uses: three equal rows, each size 1..31 */
	if (total == 0 || total % 3 || total >= 3 * 256)
		return false;
	for (size_t i = 0; i < total; i++)
		if (v[i] == 0 || v[i] > 31)
			return false;
	bs->v = xmalloc(total);
	memcpy(bs->v, v, total);
	bs->count = total / 3;
	return true;
}

bool bytecode_sizes_load(struct bytecode_sizes *bs, const struct elf_image *img)
{
	uint64_t addr, size;
	memset(bs, 0, sizeof(*bs));
	if (!elf_image_find_sym(img, "_ZN2v88internal11interpreter9Bytecodes14kBytecodeSizesE", &addr,
				&size) ||
	    size == 0 || size >= 3 * 256)
		return false;
	uint8_t buf[3 * 256];
	return elf_image_read(img, addr, buf, (size_t)size) && bytecode_sizes_from(bs, buf, (size_t)size);
}

void bytecode_sizes_free(struct bytecode_sizes *bs)
{
	free(bs->v);
	memset(bs, 0, sizeof(*bs));
}

size_t bytecode_size_at(const struct bytecode_sizes *bs, const uint8_t *bc, size_t n, size_t at)
{
	if (!bs->count || at >= n)
		return 0;
	int scale = prefix_scale(bc[at]);
	size_t prefix = scale ? 1 : 0;
	if (at + prefix >= n || bc[at + prefix] >= bs->count)
		return 0;
	return prefix + bs->v[(size_t)scale * bs->count + bc[at + prefix]];
}

bool baseline_bytecode_offset(const struct bytecode_sizes *bs, const uint8_t *table, size_t tn,
			      const uint8_t *bc, size_t bn, uint64_t pc_offset, int64_t *out)
{
	size_t at = 0;
	uint64_t pc_end, delta;
	if (!vlq_read_unsigned(table, tn, &at, &pc_end))
		return false;
	int64_t offset = -1; /* the prologue */
	size_t next = 0;     /* the bytecode the next table entry describes */
	while (pc_end < pc_offset) {
		if (next >= bn || !vlq_read_unsigned(table, tn, &at, &delta))
			return false;
		size_t size = bytecode_size_at(bs, bc, bn, next);
		if (!size)
			return false;
		offset = (int64_t)next;
		next += size;
		pc_end += delta;
	}
	*out = offset;
	return true;
}
