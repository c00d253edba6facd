/* frame_text.c — frame formatting shared by the writers. */
#include "frame_text.h"

#include "../util/text_escape.h"

void append_sanitized(struct strbuf *out, const char *s, size_t len)
{
	size_t mark = out->len;
	sb_add_escaped(out, s, len);
	for (size_t i = mark; i < out->len; i++)
		if (out->s[i] == ';')
			out->s[i] = ':';
}

void frame_text(const struct intern *strings, const struct frame *f, bool annotate,
		struct strbuf *out)
{
	append_sanitized(out, intern_get(strings, f->name), intern_len(strings, f->name));
	if (frame_in_script(f)) { /* a WebAssembly frame has no line */
		if (f->file && intern_len(strings, f->file)) {
			sb_add(out, " (");
			append_sanitized(out, intern_get(strings, f->file), intern_len(strings, f->file));
			if (f->line > 0)
				sb_printf(out, ":%d", f->line);
			sb_addc(out, ')');
		}
		if (annotate)
			sb_add(out, f->kind == FK_JS ? "_[j]" : f->kind == FK_JS_ASYNC ? "_[a]" :
				    f->kind == FK_WASM ? "_[w]" : "_[i]");
	} else if (f->kind == FK_KERNEL && annotate) {
		sb_add(out, "_[k]");
	}
}

const char *frame_function_name(const struct intern *strings, const struct frame *f)
{
	const char *n = intern_get(strings, frame_own_name(f));
	return *n ? n : "(anonymous)";
}

void frame_function_key(const struct frame *f, struct strbuf *key)
{
	bool js = frame_is_js(f);
	/* an awaiting function is a function of its own in profiles (`async f`, not f) */
	unsigned kind = f->kind == FK_JS_ASYNC ? FK_JS_ASYNC : js ? FK_JS : f->kind;
	sb_reset(key);
	if (js && f->def_line > 0) /* the script and the start position: the function itself */
		sb_printf(key, "%u|%u|%d|%d", kind, f->file, f->def_line, f->def_col);
	else
		sb_printf(key, "%u|%u|%u", kind, frame_own_name(f),
			  frame_in_script(f) || f->kind == FK_NATIVE ? f->file : 0);
}
