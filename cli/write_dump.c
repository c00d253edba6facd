/* write_dump.c — the text and JSON forms of a process dump. The JSON is a stable, documented
 * format (docs/dumps-and-cores.md): one object per thread, frames innermost first, each
 * {kind, name, file, line, column, pc, module}; a JS frame a source map moved to its original
 * position also has generated: {file, line, column}. */
#include <inttypes.h>
#include <signal.h>
#include <string.h>

#include "dump.h"
#include "../profile/frame_text.h"
#include "../util/json.h"
#include "../util/text_escape.h"

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case FK_JS: return "js";
	case FK_JS_INLINED: return "inlined";
	case FK_JS_ASYNC: return "async";
	case FK_NATIVE: return "native";
	case FK_BUILTIN: return "builtin";
	case FK_V8_TYPED: return "frame-type";
	case FK_WASM: return "wasm";
	case FK_KERNEL: return "kernel";
	case FK_TRUNCATED: return "truncated";
	default: return "unknown";
	}
}

static const char *tier_name(uint8_t tier)
{
	switch (tier) {
	case TIER_INTERPRETED: return "interpreted";
	case TIER_BASELINE: return "baseline";
	case TIER_MAGLEV: return "maglev";
	case TIER_TURBOFAN: return "turbofan";
	case TIER_BUILTIN: return "builtin";
	default: return NULL;
	}
}

/* Interned names are counted byte strings (a JavaScript name may hold U+0000). */
static struct strview str(const struct process_dump *d, uint32_t id)
{
	return id ? intern_view(d->strings, id) : (struct strview){"", 0};
}

static void add_escaped(struct strbuf *b, struct strview v)
{
	sb_add_escaped(b, v.s, v.len);
}

static void thread_header(const struct process_dump *d, const struct thread_dump *t, FILE *out)
{
	(void)d;
	fprintf_text(out, "Thread %d \"%s\"", (int)t->tid, t->name);
	if (t->crashed && t->signal && sigabbrev_np(t->signal))
		fprintf_text(out, " (crashed: SIG%s, %s)", sigabbrev_np(t->signal), strsignal(t->signal));
	else if (t->crashed)
		fprintf_text(out, " (crashed: %s)", t->signal ? strsignal(t->signal) : "fatal signal");
	else if (t->state)
		fprintf_text(out, " (%s)", t->state == 'R' ? "running" : t->state == 'S' ? "sleeping" :
				      t->state == 'D' ? "in uninterruptible wait" : "stopped");
	if (t->pause_ns)
		fprintf_text(out, " [paused %.0f us]", (double)t->pause_ns / 1e3);
	fprintf_text(out, ":\n");
	if (t->damage[0])
		fprintf_text(out, "  (damaged: %s)\n", t->damage);
}

int write_dump_text(const struct process_dump *d, FILE *out)
{
	fprintf_text(out, "Process %d (%s): %s, %s\n", (int)d->pid, d->comm, d->runtime, d->source);
	for (size_t i = 0; i < d->nwarnings; i++)
		fprintf_text(out, "warning: %s\n", d->warnings[i]);
	struct strbuf b;
	sb_init(&b);
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct thread_dump *t = &d->threads[i];
		fprintf_text(out, "\n");
		thread_header(d, t, out);
		for (int k = 0; k < t->nframes; k++) {
			const struct frame *f = &t->frames[k];
			if (f->kind == FK_TRUNCATED) {
				fprintf_text(out, "      (the walk stopped here: the rest of the stack is unknown)\n");
				continue;
			}
			sb_reset(&b);
			add_escaped(&b, str(d, f->name));
			bool js = f->kind == FK_JS || f->kind == FK_JS_INLINED || f->kind == FK_JS_ASYNC;
			if (js) {
				if (f->file)
					sb_add(&b, " ("), add_escaped(&b, str(d, f->file));
				else
					sb_add(&b, " (<anonymous>");
				if (f->line > 0)
					sb_printf(&b, ":%d", f->line);
				if (f->col > 0)
					sb_printf(&b, ":%d", f->col);
				sb_addc(&b, ')');
				if (f->kind == FK_JS_INLINED)
					sb_add(&b, " [inlined]");
			} else if ((f->kind == FK_NATIVE || f->kind == FK_WASM) && f->file) {
				sb_add(&b, " ("), add_escaped(&b, str(d, f->file)), sb_addc(&b, ')');
			}
			if (f->pc && f->kind != FK_JS_INLINED)
				fprintf_text(out, "  #%-3d 0x%016" PRIx64 " %s\n", k, f->pc, b.s);
			else
				fprintf_text(out, "  #%-3d %18s %s\n", k, "", b.s);
		}
	}
	sb_free(&b);
	return ferror(out) ? -1 : 0;
}

static void json_view(FILE *out, struct strview v)
{
	fput_json_string(out, v.s, v.len);
}

static void json_frame(const struct process_dump *d, const struct frame *f, FILE *out)
{
	bool js = frame_is_js(f);
	bool in_script = frame_in_script(f); /* WebAssembly: its module's url */
	fprintf(out, "{\"kind\":\"%s\",\"name\":", kind_name(f->kind));
	json_view(out, str(d, f->name));
	fputs(",\"file\":", out);
	if (in_script && f->file)
		json_view(out, str(d, f->file));
	else
		fputs("null", out);
	if (js && f->line > 0)
		fprintf(out, ",\"line\":%d", f->line);
	else
		fputs(",\"line\":null", out);
	if (js && f->col > 0)
		fprintf(out, ",\"column\":%d", f->col);
	else
		fputs(",\"column\":null", out);
	if (f->pc && f->kind != FK_JS_INLINED) /* an inlined frame has no pc of its own */
		fprintf(out, ",\"pc\":\"0x%" PRIx64 "\"", f->pc);
	else
		fputs(",\"pc\":null", out);
	fputs(",\"module\":", out);
	if (!in_script && f->file)
		json_view(out, str(d, f->file));
	else
		fputs("null", out);
	if (js && f->gen_file) { /* a source map moved the frame: where the running code is */
		fputs(",\"generated\":{\"file\":", out);
		json_view(out, str(d, f->gen_file));
		fprintf(out, ",\"line\":%d,\"column\":%d}", f->gen_line, f->gen_col);
	}
	const char *tier = js ? tier_name(f->tier) : NULL;
	if (tier)
		fprintf(out, ",\"tier\":\"%s\"", tier);
	fputc('}', out);
}

int write_dump_json(const struct process_dump *d, FILE *out)
{
	fprintf(out, "{\"pid\":%d,\"comm\":", (int)d->pid);
	json_string(out, d->comm);
	fputs(",\"runtime\":", out);
	json_string(out, d->runtime);
	fputs(",\"source\":", out);
	json_string(out, d->source);
	fputs(",\"warnings\":[", out);
	for (size_t i = 0; i < d->nwarnings; i++) {
		if (i)
			fputc(',', out);
		json_string(out, d->warnings[i]);
	}
	fputs("],\"threads\":[", out);
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct thread_dump *t = &d->threads[i];
		fprintf(out, "%s\n{\"tid\":%d,\"name\":", i ? "," : "", (int)t->tid);
		json_string(out, t->name);
		fprintf(out, ",\"crashed\":%s,\"signal\":%d,\"truncated\":%s", t->crashed ? "true" : "false",
			t->signal, t->truncated ? "true" : "false");
		if (t->state)
			fprintf(out, ",\"state\":\"%c\"", t->state);
		if (t->pause_ns)
			fprintf(out, ",\"pause_us\":%.1f", (double)t->pause_ns / 1e3);
		if (t->damage[0]) {
			fputs(",\"damage\":", out);
			json_string(out, t->damage);
		}
		fputs(",\"frames\":[", out);
		int k2 = 0;
		for (int k = 0; k < t->nframes; k++) {
			if (t->frames[k].kind == FK_TRUNCATED)
				continue;
			if (k2++)
				fputc(',', out);
			fputs("\n  ", out);
			json_frame(d, &t->frames[k], out);
		}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
	return ferror(out) ? -1 : 0;
}
