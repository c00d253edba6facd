/* switch_record.c — decoding one perf sample record of switch_copy's layout (switch_record.h). */
#include "switch_record.h"

#include <linux/perf_event.h>
#include <string.h>

/* Where a record is read from: a flat buffer, or a ring whose positions wrap around its size. */
struct bytes {
	const uint8_t *data;
	uint64_t size;
	bool ring;
};

/* Copy n bytes at pos (false: past a flat buffer's end). */
static bool get(const struct bytes *b, uint64_t pos, void *dst, size_t n)
{
	if (!b->ring) {
		if (pos > b->size || n > b->size - pos)
			return false;
		memcpy(dst, b->data + pos, n);
		return true;
	}
	uint64_t off = pos & (b->size - 1);
	size_t first = off + n <= b->size ? n : (size_t)(b->size - off);
	memcpy(dst, b->data + off, first);
	memcpy((uint8_t *)dst + first, b->data, n - first);
	return true;
}

/* The n bytes at pos, in place: one piece, or two when they wrap around a ring's end. */
static void span(const struct bytes *b, uint64_t pos, size_t n, struct switch_record *out)
{
	uint64_t off = b->ring ? pos & (b->size - 1) : pos;
	size_t first = off + n <= b->size ? n : (size_t)(b->size - off);
	out->stack = n ? b->data + off : NULL;
	out->stack_len = first;
	out->more = n > first ? b->data : NULL;
	out->more_len = n - first;
}

/* The record at pos, which must end within limit bytes. */
static enum switch_record_kind decode_at(const struct bytes *b, uint64_t pos, uint64_t limit,
					 struct switch_record *out, size_t *size_out)
{
	struct perf_event_header h;
	if (limit < sizeof(h) || !get(b, pos, &h, sizeof(h)) || h.size < sizeof(h) || h.size > limit)
		return SWITCH_RECORD_BAD;
	*size_out = h.size;
	if (h.type != PERF_RECORD_SAMPLE)
		return SWITCH_RECORD_OTHER;
	memset(out, 0, sizeof(*out));
	uint64_t at = pos + sizeof(h), end = pos + h.size;
	uint64_t fixed[3 + SWITCH_NREGS]; /* ids, time, abi, registers */
	if (end - at < 3 * 8 || !get(b, at, fixed, 3 * 8))
		return SWITCH_RECORD_BAD;
	at += 3 * 8;
	out->pid = (uint32_t)fixed[0];
	out->tid = (uint32_t)(fixed[0] >> 32);
	out->time_ns = fixed[1];
	if (fixed[2] != PERF_SAMPLE_REGS_ABI_NONE) {
		if (end - at < 8 * SWITCH_NREGS || !get(b, at, fixed + 3, 8 * SWITCH_NREGS))
			return SWITCH_RECORD_BAD;
		at += 8 * SWITCH_NREGS;
		regset_from_perf(&out->regs, fixed + 3);
		out->has_regs = true;
	}
	uint64_t stack_size, dyn;
	if (end - at < 8 || !get(b, at, &stack_size, 8))
		return SWITCH_RECORD_BAD;
	at += 8;
	if (stack_size) {
		/* the static size's bytes, then the dynamic size: how many of them were copied */
		if (stack_size > end - at || end - at - stack_size < 8 || !get(b, at + stack_size, &dyn, 8) ||
		    dyn > stack_size)
			return SWITCH_RECORD_BAD;
		span(b, at, (size_t)dyn, out);
	}
	return SWITCH_RECORD_SAMPLE;
}

enum switch_record_kind switch_record_decode(const uint8_t *buf, size_t len, struct switch_record *out)
{
	struct bytes b = {buf, len, false};
	size_t size;
	return decode_at(&b, 0, len, out, &size);
}

enum switch_record_kind switch_ring_newest(const struct switch_ring_view *v, uint64_t head,
					   struct switch_record *out)
{
	if (!v->size || (v->size & (v->size - 1)))
		return SWITCH_RECORD_BAD;
	struct bytes b = {v->data, v->size, true};
	/* what one write put there: a sample, after the count of those a shut ring dropped */
	uint64_t pos = head;
	for (int i = 0; i < SWITCH_RECORDS_BEFORE_SAMPLE + 1; i++) {
		size_t size = 0;
		enum switch_record_kind k = decode_at(&b, pos, v->size - (pos - head), out, &size);
		if (k != SWITCH_RECORD_OTHER)
			return k;
		pos += size;
	}
	return SWITCH_RECORD_OTHER;
}
