/* vlq.c — base64 VLQ: 5 bits per digit, least significant first, bit 5 = more digits follow; the
 * lowest bit of the value is its sign. */
#include "vlq.h"

int base64_digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool vlq_decode(const char **p, const char *end, int32_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	const char *s = *p;
	for (;;) {
		if (s >= end)
			return false;
		int d = base64_digit(*s++);
		if (d < 0)
			return false;
		if (shift > 30) /* a 7th digit: more than 32 bits of magnitude and sign */
			return false;
		v |= (uint64_t)(d & 31) << shift;
		shift += 5;
		if (!(d & 32))
			break;
	}
	bool neg = v & 1;
	v >>= 1;
	if (v > (neg ? UINT64_C(0x80000000) : UINT64_C(0x7fffffff)))
		return false;
	*out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	*p = s;
	return true;
}
