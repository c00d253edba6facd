/* xalloc.c — allocation helpers that never return NULL. */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "v8walk: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = 0;
	return d;
}

void xgrow(void **pv, size_t *cap, size_t need, size_t esize)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	*pv = xrealloc(*pv, ncap * esize);
	memset((char *)*pv + *cap * esize, 0, (ncap - *cap) * esize);
	*cap = ncap;
}
