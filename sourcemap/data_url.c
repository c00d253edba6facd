/* data_url.c — inline source maps in data: URLs. */
#include "data_url.h"

#include <string.h>
#include <strings.h>

#include "vlq.h"

/* base64 and base64url digits, as Buffer.from(s, 'base64') takes them */
static int b64(char c)
{
	return c == '-' ? 62 : c == '_' ? 63 : base64_digit(c);
}

/* Buffer.from(s, 'base64'): stops at the first '=', skips characters outside the alphabet. */
static void base64_decode(const char *s, size_t n, struct strbuf *out)
{
	unsigned acc = 0, bits = 0;
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		int v = b64(s[i]);
		if (v < 0)
			continue;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			sb_addc(out, (char)(acc >> bits & 0xff));
		}
	}
}

bool data_url_decode(const char *url, size_t len, size_t max_bytes, struct strbuf *out,
		     const char **why)
{
	const char *p = url + 5, *end = url + len; /* after "data:" */
	const char *comma = memchr(p, ',', (size_t)(end - p));
	if (!comma) {
		*why = "a data: URL without ','";
		return false;
	}
	const char *semi = memchr(p, ';', (size_t)(comma - p));
	const char *type_end = semi ? semi : comma;
	if ((size_t)(type_end - p) != 16 || strncasecmp(p, "application/json", 16) != 0) {
		*why = "a data: URL that is not application/json";
		return false;
	}
	const char *last_param = comma;
	while (last_param > type_end && last_param[-1] != ';')
		last_param--;
	bool base64 = semi && comma - last_param == 6 && strncmp(last_param, "base64", 6) == 0;
	size_t n = (size_t)(end - comma - 1);
	if ((base64 ? n / 4 * 3 : n) > max_bytes) {
		*why = "the inline map is too large";
		return false;
	}
	if (base64)
		base64_decode(comma + 1, n, out);
	else
		sb_addn(out, comma + 1, n);
	return true;
}
