/* rowbinary.c — RowBinary values (rowbinary.h): little-endian integers, LEB128 lengths. */
#include "rowbinary.h"

#include <string.h>

void rb_put_u32(struct strbuf *b, uint32_t v)
{
	char le[4];
	for (int i = 0; i < 4; i++)
		le[i] = (char)(v >> (8 * i));
	sb_addn(b, le, 4);
}

void rb_put_u8(struct strbuf *b, uint8_t v)
{
	sb_addc(b, (char)v);
}

void rb_put_f64(struct strbuf *b, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits)); /* IEEE 754, little-endian like every RowBinary number */
	rb_put_u64(b, bits);
}

void rb_put_u64(struct strbuf *b, uint64_t v)
{
	char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (char)(v >> (8 * i));
	sb_addn(b, le, 8);
}

void rb_put_varuint(struct strbuf *b, uint64_t v)
{
	do {
		unsigned char byte = v & 0x7f;
		v >>= 7;
		sb_addc(b, (char)(byte | (v ? 0x80 : 0)));
	} while (v);
}

void rb_put_string(struct strbuf *b, const char *s, size_t len)
{
	rb_put_varuint(b, len);
	sb_addn(b, s, len);
}

/* A little-endian integer of `bytes` bytes. */
static uint64_t get_le(struct rb_cursor *c, int bytes)
{
	if (c->failed || c->end - c->p < bytes) {
		c->failed = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	return v;
}

uint64_t rb_get_u64(struct rb_cursor *c)
{
	return get_le(c, 8);
}

uint32_t rb_get_u32(struct rb_cursor *c)
{
	return (uint32_t)get_le(c, 4);
}

double rb_get_f64(struct rb_cursor *c)
{
	uint64_t bits = get_le(c, 8);
	double v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

uint64_t rb_get_varuint(struct rb_cursor *c)
{
	uint64_t v = 0;
	for (int shift = 0; !c->failed && shift < 64; shift += 7) {
		if (c->p == c->end)
			break;
		unsigned char byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->failed = true;
	return 0;
}

bool rb_get_string(struct rb_cursor *c, size_t max_len, const char **s, size_t *len)
{
	uint64_t n = rb_get_varuint(c);
	if (c->failed || n > max_len || n > (uint64_t)(c->end - c->p)) {
		c->failed = true;
		return false;
	}
	*s = (const char *)c->p;
	*len = (size_t)n;
	c->p += n;
	return true;
}
