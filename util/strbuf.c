/* strbuf.c — a growable, always NUL-terminated byte string. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void sb_init(struct strbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	sb_init(b);
}

void sb_reset(struct strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

static void reserve(struct strbuf *b, size_t extra)
{
	if (b->len + extra + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 64;
		while (ncap < b->len + extra + 1)
			ncap *= 2;
		b->s = xrealloc(b->s, ncap);
		b->cap = ncap;
	}
}

char *sb_room(struct strbuf *b, size_t extra)
{
	reserve(b, extra);
	return b->s + b->len;
}

void sb_addn(struct strbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_add(struct strbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

void sb_addc(struct strbuf *b, char c)
{
	sb_addn(b, &c, 1);
}

void sb_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

char *sb_take(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	sb_init(b);
	return s;
}
