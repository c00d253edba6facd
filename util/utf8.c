/* utf8.c — UTF-8 sequence checks (no overlongs, no surrogates, at most U+10FFFF). */
#include "utf8.h"

#include <stdint.h>

size_t utf8_seq_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	if (s[0] < 0x80)
		return 1;
	size_t n;
	uint32_t cp, min;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}
