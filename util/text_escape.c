/* text_escape.c — escaping target-controlled bytes for terminals, text files and JSON. */
#include "text_escape.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s[0..n) (1..4), or 0 when it is not valid (overlong
 * forms, surrogates, code points above U+10FFFF and truncated sequences are invalid). *cp gets
 * the code point. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t need;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return need;
}

static int is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* One character (n bytes at s, code point cp) as JSON writes it. */
static void add_json_char(struct strbuf *out, const char *s, size_t n, uint32_t cp)
{
	if (cp == '"' || cp == '\\')
		sb_printf(out, "\\%c", (char)cp);
	else if (cp == '\n')
		sb_add(out, "\\n");
	else if (cp == '\t')
		sb_add(out, "\\t");
	else if (is_control(cp))
		sb_printf(out, "\\u%04x", (unsigned)cp);
	else
		sb_addn(out, s, n);
}

/* The one walk over the bytes for both forms: valid UTF-8 a character at a time, an invalid
 * byte alone. */
static void add_escaped_as(struct strbuf *out, const char *s, size_t len, bool json)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_seq(p + i, len - i, &cp);
		size_t bytes = n ? n : 1; /* a character, or one invalid byte */
		if (json && n)
			add_json_char(out, s + i, n, cp);
		else if (json)
			sb_add(out, "\\ufffd");
		else if (n && !is_control(cp))
			sb_addn(out, s + i, n);
		else /* a control character or an invalid byte: visible, byte by byte */
			for (size_t k = 0; k < bytes; k++)
				sb_printf(out, "\\x%02x", p[i + k]);
		i += bytes;
	}
}

void sb_add_escaped(struct strbuf *out, const char *s, size_t len)
{
	add_escaped_as(out, s, len, false);
}

void sb_add_escaped_str(struct strbuf *out, const char *s)
{
	sb_add_escaped(out, s, strlen(s));
}

void fput_escaped(FILE *f, const char *s, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	sb_add_escaped(&b, s, len);
	if (b.len)
		fwrite(b.s, 1, b.len, f);
	sb_free(&b);
}

void sb_add_json(struct strbuf *out, const char *s, size_t len)
{
	add_escaped_as(out, s, len, true);
}

void fput_json_string(FILE *f, const char *s, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	sb_addc(&b, '"');
	sb_add_json(&b, s, len);
	sb_addc(&b, '"');
	fwrite(b.s, 1, b.len, f);
	sb_free(&b);
}

void sb_vprintf_text(struct strbuf *out, const char *fmt, va_list ap)
{
	struct strbuf raw;
	sb_init(&raw);
	sb_vprintf(&raw, fmt, ap);
	sb_add_escaped(out, raw.s ? raw.s : "", raw.len);
	sb_free(&raw);
}

void sb_printf_text(struct strbuf *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf_text(out, fmt, ap);
	va_end(ap);
}

void fprintf_text(FILE *f, const char *fmt, ...)
{
	struct strbuf raw, safe;
	sb_init(&raw);
	sb_init(&safe);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&raw, fmt, ap);
	va_end(ap);
	bool newline = raw.len && raw.s[raw.len - 1] == '\n';
	sb_add_escaped(&safe, raw.s ? raw.s : "", raw.len - newline);
	if (newline)
		sb_addc(&safe, '\n');
	if (safe.len)
		fwrite(safe.s, 1, safe.len, f);
	sb_free(&raw);
	sb_free(&safe);
}
