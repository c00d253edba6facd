/* safepoints.c — Maglev safepoint table lookups. */
#include "safepoints.h"

#include <string.h>

struct config {
	int32_t length;
	bool has_deopt;
	int reg_bytes, pc_bytes, deopt_bytes;
	size_t entry;
};

static bool config_of(const uint8_t *t, size_t n, struct config *c)
{
	uint32_t cfg;
	if (n < MAGLEV_SAFEPOINT_HEADER)
		return false;
	memcpy(&c->length, t, 4);
	memcpy(&cfg, t + MAGLEV_SAFEPOINT_CONFIG, 4);
	c->has_deopt = cfg & 1;
	c->reg_bytes = (cfg >> 1) & 7;
	c->pc_bytes = (cfg >> 4) & 7;
	c->deopt_bytes = (cfg >> 7) & 7;
	c->entry = (size_t)c->pc_bytes + (c->has_deopt ? (size_t)(c->pc_bytes + c->deopt_bytes) : 0) + 1 +
		   (size_t)c->reg_bytes;
	return c->length >= 0 && c->length <= MAGLEV_SAFEPOINT_MAX && c->pc_bytes >= 1 &&
	       c->pc_bytes <= 4 && c->deopt_bytes <= 4 && c->reg_bytes <= 4;
}

size_t maglev_safepoints_size(const uint8_t *header, size_t n)
{
	struct config c;
	return config_of(header, n, &c) ? MAGLEV_SAFEPOINT_HEADER + (size_t)c.length * c.entry : 0;
}

static uint32_t bytes_at(const uint8_t *p, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

bool maglev_deopt_index(const uint8_t *table, size_t n, uint32_t pc_offset, int *deopt_index)
{
	struct config c;
	if (!config_of(table, n, &c) || !c.has_deopt ||
	    MAGLEV_SAFEPOINT_HEADER + (size_t)c.length * c.entry > n)
		return false;
	for (int32_t i = 0; i < c.length; i++) {
		const uint8_t *e = table + MAGLEV_SAFEPOINT_HEADER + (size_t)i * c.entry;
		if (bytes_at(e, c.pc_bytes) != pc_offset)
			continue;
		uint32_t stored = bytes_at(e + c.pc_bytes, c.deopt_bytes); /* the index + 1 */
		if (stored == 0 || stored - 1 > INT32_MAX)
			return false; /* none, or past any index (found by fuzz/fuzz_v8_tables.c) */
		*deopt_index = (int)(stored - 1);
		return true;
	}
	return false;
}
