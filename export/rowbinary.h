/* rowbinary.h — ClickHouse's RowBinary format, both ways: appending values to an insert body,
 * and reading values from a query's answer. Reading is bounded: every value is checked against
 * the bytes left and the caller's limits, and a short or oversized value fails the cursor (it
 * stays failed) instead of reading past the end. */
#ifndef V8WALK_ROWBINARY_H
#define V8WALK_ROWBINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

/* writing */
void rb_put_u8(struct strbuf *b, uint8_t v);
void rb_put_u32(struct strbuf *b, uint32_t v);
void rb_put_f64(struct strbuf *b, double v);
void rb_put_u64(struct strbuf *b, uint64_t v);
void rb_put_varuint(struct strbuf *b, uint64_t v);
void rb_put_string(struct strbuf *b, const char *s, size_t len);

/* reading */
struct rb_cursor {
	const unsigned char *p, *end;
	bool failed;
};

static inline void rb_cursor_init(struct rb_cursor *c, const void *p, size_t len)
{
	static const unsigned char empty[1];
	c->p = p ? p : empty; /* an empty answer's buffer may be NULL: no arithmetic on it */
	len = p ? len : 0;
	c->end = c->p + len;
	c->failed = false;
}
static inline bool rb_at_end(const struct rb_cursor *c)
{
	return !c->failed && c->p == c->end;
}
uint64_t rb_get_u64(struct rb_cursor *c);
uint32_t rb_get_u32(struct rb_cursor *c);
double rb_get_f64(struct rb_cursor *c);
uint64_t rb_get_varuint(struct rb_cursor *c);
/* A string of at most max_len bytes: points into the buffer (not NUL-terminated). */
bool rb_get_string(struct rb_cursor *c, size_t max_len, const char **s, size_t *len);

#endif
