/* stall_output.c — the stall lines and JSON of --stalls (stall_output.h). */
#include "stall_output.h"

#include <string.h>
#include <time.h>

#include "../profile/frame_text.h"
#include "../util/json.h"
#include "../util/text_escape.h"

static const char *const class_titles[STALL_CLASSES] = {"JS", "GC", "native", "builtin"};

void stall_output_init(struct stall_output *so, const struct intern *strings, FILE *line_out,
		       FILE *json_out, double threshold_ms)
{
	struct timespec wall, mono;
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	*so = (struct stall_output){
	    .strings = strings, .line_out = line_out, .json_out = json_out,
	    .threshold_ms = threshold_ms,
	    .wall_minus_mono_ns = ((int64_t)wall.tv_sec - (int64_t)mono.tv_sec) * 1000000000LL +
				  ((int64_t)wall.tv_nsec - (int64_t)mono.tv_nsec)};
}

/* When the stall began, as local time HH:MM:SS.mmm (clock) or UTC ISO 8601 (iso). */
static void began_at(const struct stall_output *so, const struct stall_report *r, bool iso,
		     char *buf, size_t len)
{
	int64_t wall = (int64_t)r->start_ns + so->wall_minus_mono_ns;
	time_t sec = (time_t)(wall / 1000000000LL);
	int ms = (int)((wall % 1000000000LL) / 1000000LL);
	struct tm tm;
	if (iso)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	char base[32];
	strftime(base, sizeof(base), iso ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
	snprintf(buf, len, iso ? "%s.%03dZ" : "%s.%03d", base, ms);
}

void stall_output_line(const struct stall_output *so, const struct stall_report *r,
		       struct strbuf *out)
{
	char at[40];
	began_at(so, r, false, at, sizeof(at));
	sb_printf(out, "stall %s%.1f ms%s at %s in process %d (%s)", r->began_before ? "over " : "",
		  (double)r->duration_ns / 1e6, r->unfinished ? " and still running" : "", at,
		  (int)r->pid, r->process_name ? intern_get(so->strings, r->process_name) : "?");
	if (!r->samples) {
		sb_add(out, ": no samples (off a CPU between them)");
		return;
	}
	sb_add(out, ":");
	bool first = true;
	for (int c = 0; c < STALL_CLASSES; c++) {
		if (!r->classes[c])
			continue;
		sb_printf(out, "%s %s %.0f%%", first ? "" : ",", class_titles[c],
			  100.0 * (double)r->classes[c] / (double)r->samples);
		if (r->class_frame[c] && (c == STALL_NATIVE || c == STALL_BUILTIN)) {
			sb_add(out, " (");
			const char *name = intern_get(so->strings, r->class_frame[c]);
			append_sanitized(out, name, strlen(name));
			sb_add(out, ")");
		}
		first = false;
	}
	for (int i = 0; i < r->nchain; i++) {
		sb_add(out, i ? " < " : ": ");
		frame_text(so->strings, &r->chain[i], false, out);
	}
}

static void json_js_frame(const struct stall_output *so, const struct frame *f, FILE *out)
{
	fputs("{\"function\":", out);
	json_string(out, frame_function_name(so->strings, f));
	fputs(",\"file\":", out);
	json_string(out, f->file ? intern_get(so->strings, f->file) : "");
	fprintf(out, ",\"line\":%d,\"defLine\":%d}", (int)f->line, (int)f->def_line);
}

void stall_output_json(const struct stall_output *so, const struct stall_report *r, FILE *out)
{
	char at[48];
	began_at(so, r, true, at, sizeof(at));
	fprintf(out, "{\"stall\":{\"pid\":%d,\"process\":", (int)r->pid);
	json_string(out, r->process_name ? intern_get(so->strings, r->process_name) : "");
	fprintf(out, ",\"start\":\"%s\",\"startNs\":%llu,\"durationMs\":%.3f,\"thresholdMs\":%g,"
		     "\"beganBefore\":%s,\"unfinished\":%s,\"samples\":%lu,\"classes\":{",
		at, (unsigned long long)r->start_ns, (double)r->duration_ns / 1e6, so->threshold_ms,
		r->began_before ? "true" : "false", r->unfinished ? "true" : "false", r->samples);
	for (int c = 0; c < STALL_CLASSES; c++)
		fprintf(out, "%s\"%s\":%lu", c ? "," : "", stall_class_name((enum stall_class)c),
			r->classes[c]);
	fputs("},\"named\":{", out);
	bool first = true;
	for (int c = 0; c < STALL_CLASSES; c++) {
		if (!r->class_frame[c])
			continue;
		fprintf(out, "%s\"%s\":", first ? "" : ",", stall_class_name((enum stall_class)c));
		json_string(out, intern_get(so->strings, r->class_frame[c]));
		first = false;
	}
	fputs("},\"top\":[", out);
	for (int i = 0; i < r->ntop; i++) {
		fputs(i ? ",{" : "{", out);
		fprintf(out, "\"samples\":%lu,\"frame\":", r->top[i].samples);
		json_js_frame(so, &r->top[i].frame, out);
		fputc('}', out);
	}
	fputs("],\"frames\":[", out);
	for (int i = 0; i < r->nchain; i++) {
		if (i)
			fputc(',', out);
		json_js_frame(so, &r->chain[i], out);
	}
	fputs("]}}\n", out);
	fflush(out);
}

int64_t stall_output_unix_ms(const struct stall_output *so, uint64_t mono_ns)
{
	return ((int64_t)mono_ns + so->wall_minus_mono_ns) / 1000000LL;
}

void stall_output_report(void *ctx, const struct stall_report *r)
{
	const struct stall_output *so = ctx;
	if (so->line_out) {
		struct strbuf line;
		sb_init(&line);
		stall_output_line(so, r, &line);
		fprintf_text(so->line_out, "v8walk: %s\n", line.s);
		sb_free(&line);
	}
	if (so->json_out)
		stall_output_json(so, r, so->json_out);
}

void stall_output_summary(const struct stall_output *so, const struct stall_tracker *t, FILE *out)
{
	if (!t->stalls) {
		fprintf(out, "v8walk: no event-loop iteration ran %g ms or more\n", so->threshold_ms);
		return;
	}
	fprintf(out, "v8walk: %lu stall%s of %g ms or more, %.1f ms in all, the longest %.1f ms; "
		     "%lu samples in %s\n",
		t->stalls, t->stalls == 1 ? "" : "s", so->threshold_ms, (double)t->total_ns / 1e6,
		(double)t->longest_ns / 1e6, t->samples, t->stalls == 1 ? "it" : "them");
}
