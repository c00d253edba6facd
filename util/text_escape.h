/* text_escape.h — the one way target-controlled bytes leave v8walk as text: counted byte strings
 * (never C strings) made safe for a terminal (C0/C1 controls, DEL and invalid UTF-8 become visible
 * \xHH escapes) or for a JSON string (escaped as JSON requires, invalid UTF-8 as U+FFFD). */
#ifndef V8WALK_TEXT_ESCAPE_H
#define V8WALK_TEXT_ESCAPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"

/* Append s[0..len) with every control byte (C0, DEL), C1 control (U+0080..U+009F) and byte of
 * invalid UTF-8 written as \xHH; valid printable UTF-8 is kept as it is. */
void sb_add_escaped(struct strbuf *out, const char *s, size_t len);
/* The same for a NUL-terminated string that came from outside (a path, a comm, a message). */
void sb_add_escaped_str(struct strbuf *out, const char *s);
/* Write s[0..len) escaped (as sb_add_escaped) to f. */
void fput_escaped(FILE *f, const char *s, size_t len);
/* fprintf whose whole output is safe text: formatted, then escaped as sb_add_escaped, except a
 * final newline. For every line that can hold target-controlled text (diagnostics, warnings, the
 * summary, --dump and --core text): v8walk's own words are printable and pass unchanged. */
void fprintf_text(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same appended to a buffer, without a newline of its own: a one-line message that may quote
 * what came from outside (a refused option's argument). */
void sb_printf_text(struct strbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf_text(struct strbuf *out, const char *fmt, va_list ap);
/* Append s[0..len) as the body of a JSON string (no quotes): ", \ and controls escaped, C1 as
 * \u00XX, invalid UTF-8 as \ufffd. */
void sb_add_json(struct strbuf *out, const char *s, size_t len);
/* Write s[0..len) as a quoted JSON string to f. */
void fput_json_string(FILE *f, const char *s, size_t len);

#endif
