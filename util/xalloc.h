/* xalloc.h — allocation helpers that never return NULL (v8walk exits with a message on OOM). */
#ifndef V8WALK_XALLOC_H
#define V8WALK_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *pv (elements of esize) so that index `need - 1` is valid; doubles the capacity. */
void xgrow(void **pv, size_t *cap, size_t need, size_t esize);

#define XGROW(ptr, cap, need) xgrow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#endif
