/* spt.c — decoding source-position tables and VLQ integers. */
#include "spt.h"

bool vlq_read_unsigned(const uint8_t *p, size_t n, size_t *at, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*at >= n)
			return false;
		uint8_t b = p[(*at)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false; /* more than 64 bits: not a table we understand */
}

bool vlq_read_signed(const uint8_t *p, size_t n, size_t *at, int64_t *out)
{
	uint64_t z;
	if (!vlq_read_unsigned(p, n, at, &z))
		return false;
	*out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return true;
}

void spt_iter_init(struct spt_iter *it, const uint8_t *p, size_t n, enum spt_format format)
{
	it->p = p;
	it->n = n;
	it->at = 0;
	it->format = format;
	it->cur.code_offset = -1;
	it->cur.position = 0;
	it->cur.is_statement = false;
	it->bad = false;
}

bool spt_iter_next(struct spt_iter *it)
{
	if (it->bad || it->at >= it->n)
		return false;
	int64_t code_delta, pos_delta;
	uint64_t z = 0;
	bool ok;
	if (it->format == SPT_PACKED) {
		ok = vlq_read_unsigned(it->p, it->n, &it->at, &z) && z >> 62 == 0;
		it->cur.is_statement = z & 1;
		code_delta = (int64_t)(z >> 2);
	} else {
		ok = vlq_read_signed(it->p, it->n, &it->at, &code_delta);
		it->cur.is_statement = code_delta >= 0;
		if (code_delta < 0)
			code_delta = -(code_delta + 1);
	}
	if (!ok || !vlq_read_signed(it->p, it->n, &it->at, &pos_delta)) {
		it->bad = true;
		return false;
	}
	if (__builtin_add_overflow(it->cur.code_offset, code_delta, &it->cur.code_offset)) {
		it->bad = true; /* found by fuzz/fuzz_v8_tables.c */
		return false;
	}
	it->cur.position += (uint64_t)pos_delta;
	return true;
}

bool spt_lookup(const uint8_t *p, size_t n, enum spt_format format, int64_t code_offset,
		uint64_t *position)
{
	struct spt_iter it;
	spt_iter_init(&it, p, n, format);
	bool found = false;
	while (spt_iter_next(&it) && it.cur.code_offset <= code_offset) {
		if (srcpos_is_external(it.cur.position))
			continue; /* builtins' C++ positions; V8 looks at JavaScript positions only */
		*position = it.cur.position;
		found = true;
	}
	return found && !it.bad;
}
