/* strbuf.h — a growable, always NUL-terminated byte string. */
#ifndef V8WALK_STRBUF_H
#define V8WALK_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_init(struct strbuf *b);
void sb_free(struct strbuf *b);
void sb_reset(struct strbuf *b);
void sb_addn(struct strbuf *b, const char *s, size_t n);
void sb_add(struct strbuf *b, const char *s);
void sb_addc(struct strbuf *b, char c);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *b, const char *fmt, va_list ap);
/* Room for `extra` more bytes after the content: returns where they go (the caller writes
 * them, then sets len and the NUL). */
char *sb_room(struct strbuf *b, size_t extra);
/* Detach the buffer (caller frees); b is reset to empty. */
char *sb_take(struct strbuf *b);

#endif
