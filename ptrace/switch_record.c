/* switch_record.c — decoding one perf sample record of switch_copy's layout (switch_record.h). */
#include "switch_record.h"

#include <linux/perf_event.h>
#include <string.h>

struct cursor {
	const uint8_t *p;
	size_t left;
};

static bool take_u64(struct cursor *c, uint64_t *v)
{
	if (c->left < 8)
		return false;
	memcpy(v, c->p, 8);
	c->p += 8;
	c->left -= 8;
	return true;
}

size_t switch_record_size(const uint8_t *buf, size_t len)
{
	struct perf_event_header h;
	if (len < sizeof(h))
		return 0;
	memcpy(&h, buf, sizeof(h));
	return h.size < sizeof(h) ? 0 : h.size;
}

enum switch_record_kind switch_record_decode(const uint8_t *buf, size_t len, struct switch_record *out)
{
	struct perf_event_header h;
	size_t size = switch_record_size(buf, len);
	if (!size || size > len)
		return SWITCH_RECORD_BAD;
	memcpy(&h, buf, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE)
		return SWITCH_RECORD_OTHER;
	memset(out, 0, sizeof(*out));
	struct cursor c = {buf + sizeof(h), size - sizeof(h)};
	uint64_t ids, abi, stack_size, dyn;
	if (!take_u64(&c, &ids) || !take_u64(&c, &out->time_ns) || !take_u64(&c, &abi))
		return SWITCH_RECORD_BAD;
	out->pid = (uint32_t)ids;
	out->tid = (uint32_t)(ids >> 32);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		/* perf's order (SWITCH_REGS_MASK, by bit) in DWARF numbers; -1: not unwinding state */
		static const int dw_of[SWITCH_NREGS] = {DW_RAX, DW_RBX, DW_RCX, DW_RDX, DW_RSI, DW_RDI,
							DW_RBP, DW_RSP, DW_RIP, -1,     -1,     -1,
							DW_R8,  DW_R9,  DW_R10, DW_R11, DW_R12, DW_R13,
							DW_R14, DW_R15};
		for (int i = 0; i < SWITCH_NREGS; i++) {
			uint64_t v;
			if (!take_u64(&c, &v))
				return SWITCH_RECORD_BAD;
			if (dw_of[i] >= 0)
				reg_set(&out->regs, dw_of[i], v);
		}
		out->has_regs = true;
	}
	if (!take_u64(&c, &stack_size))
		return SWITCH_RECORD_BAD;
	if (stack_size) {
		/* the static size's bytes, then the dynamic size: how many of them were copied */
		if (stack_size > c.left || c.left - stack_size < 8)
			return SWITCH_RECORD_BAD;
		memcpy(&dyn, c.p + stack_size, 8);
		if (dyn > stack_size)
			return SWITCH_RECORD_BAD;
		out->stack = c.p;
		out->stack_len = (size_t)dyn;
	}
	return SWITCH_RECORD_SAMPLE;
}

/* The record at pos of len bytes, contiguous: in the ring, or copied to the scratch. */
static const uint8_t *record_at(const struct switch_ring_view *v, uint64_t pos, size_t len)
{
	uint64_t off = pos & (v->size - 1);
	if (off + len <= v->size)
		return v->data + off;
	size_t first = (size_t)(v->size - off);
	memcpy(v->scratch, v->data + off, first);
	memcpy(v->scratch + first, v->data, len - first);
	return v->scratch;
}

size_t switch_ring_scan(const struct switch_ring_view *v, uint64_t tail, uint64_t head,
			bool (*want)(const struct switch_record *s, void *ctx), void *ctx,
			struct switch_record *out, bool *found)
{
	struct perf_event_header h;
	size_t samples = 0;
	uint64_t best = 0, best_len = 0;
	*found = false;
	if (!v->size || (v->size & (v->size - 1)) || head - tail > v->size)
		return 0;
	for (uint64_t pos = tail; pos < head && head - pos >= sizeof(h);) {
		uint8_t hdr[sizeof(h)];
		memcpy(hdr, record_at(v, pos, sizeof(hdr)), sizeof(hdr));
		size_t size = switch_record_size(hdr, sizeof(hdr));
		if (!size || size > head - pos)
			break;
		struct switch_record s;
		if (switch_record_decode(record_at(v, pos, size), size, &s) == SWITCH_RECORD_SAMPLE) {
			samples++;
			if (want(&s, ctx)) {
				best = pos;
				best_len = size;
				*found = true;
			}
		}
		pos += size;
	}
	if (*found) /* decoded again: a later record may have used the scratch since */
		switch_record_decode(record_at(v, best, (size_t)best_len), (size_t)best_len, out);
	return samples;
}
