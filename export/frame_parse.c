/* frame_parse.c — folded frame text to a frame (frame_parse.h). */
#include "frame_parse.h"

#include <string.h>

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* "FILE:LINE" or "FILE": the line when the text after the last ':' is a number. */
static void file_and_line(struct intern *strings, const char *s, size_t len, struct frame *f)
{
	const char *colon = NULL;
	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == ':') {
			colon = s + i - 1;
			break;
		}
	size_t digits = colon ? len - (size_t)(colon + 1 - s) : 0;
	bool number = colon && digits > 0 && digits < 10 && (colon + 1)[0] != '0';
	for (size_t i = 0; number && i < digits; i++)
		number = colon[1 + i] >= '0' && colon[1 + i] <= '9';
	if (number) {
		int line = 0;
		for (size_t i = 0; i < digits; i++)
			line = line * 10 + (colon[1 + i] - '0');
		f->line = line;
		len = (size_t)(colon - s);
	}
	f->file = intern_n(strings, s, len);
}

static const struct {
	enum frame_kind kind;
	const char *marker;
} markers[] = {
	{FK_BUILTIN, "_[b]"}, {FK_V8_TYPED, "_[t]"}, {FK_UNKNOWN, "_[u]"},
};

const char *frame_kind_marker(enum frame_kind kind)
{
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (markers[i].kind == kind)
			return markers[i].marker;
	return NULL;
}

void frame_parse(struct intern *strings, const char *text, size_t len, struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = FK_NATIVE;
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (ends_with(text, len, markers[i].marker)) {
			f->kind = markers[i].kind;
			len -= strlen(markers[i].marker);
			f->name = intern_n(strings, text, len);
			f->fn_name = f->name;
			return;
		}
	if (ends_with(text, len, "_[k]")) {
		f->kind = FK_KERNEL;
		len -= 4;
	} else if (ends_with(text, len, "_[j]") || ends_with(text, len, "_[i]") || ends_with(text, len, "_[a]") ||
		   ends_with(text, len, "_[w]")) {
		char k = text[len - 2];
		f->kind = k == 'j' ? FK_JS : k == 'i' ? FK_JS_INLINED : k == 'a' ? FK_JS_ASYNC : FK_WASM;
		len -= 4;
		/* "NAME (FILE[:LINE])": the last " (" opens the position */
		if (len && text[len - 1] == ')') {
			for (size_t i = len - 1; i >= 2; i--) {
				if (text[i - 2] == ' ' && text[i - 1] == '(') {
					if (f->kind == FK_WASM) /* a url, no line: "http://h:8080" */
						f->file = intern_n(strings, text + i, len - 1 - i);
					else
						file_and_line(strings, text + i, len - 1 - i, f);
					len = i - 2;
					break;
				}
			}
		}
		f->def_line = f->line;
	}
	f->name = intern_n(strings, text, len);
	f->fn_name = f->name;
}
