/* write_svg.c — an interactive flame graph in one self-contained SVG file, in the manner of
 * FlameGraph's flamegraph.pl: root at the bottom, children in name order, width by samples;
 * FlameGraph's js palette (JS green, inlined JS aqua, native yellow, kernel orange; an async
 * function awaiting the frames above it violet); a title
 * with the target, the runtime, the duration, the samples and the achieved rate; frames
 * narrower than MIN_WIDTH_PX (a pixel) are left out, as flamegraph.pl's --minwidth (their
 * samples stay in their parent's width). With a baseline profile the graph is differential:
 * each frame is matched to the same call path (the same frame texts from the root) in the
 * baseline, and coloured by how its share of all samples changed, red grown, blue shrunk, white
 * unchanged (FlameGraph's difffolded.pl and --negate idea), its title saying the change. The
 * embedded script (svg_script.h) gives hover details, click-to-zoom, reset and search. */
#include "writers.h"

#include <stdlib.h>
#include <string.h>

#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "svg_script.h"

enum { WIDTH = 1200, PAD = 10, FRAME_H = 16, TOP = 66, BOTTOM = 34 };
#define MIN_WIDTH_PX 1.0

enum { NO_NODE = UINT32_MAX };

struct svg {
	const struct profile *p;
	const struct profile *base; /* differential: the baseline (NULL = not) */
	FILE *out;
	double scale; /* pixels per sample */
	int height;
	struct strbuf text;
};

/* Text for XML: markup characters escaped, control characters dropped, bytes that are not UTF-8
 * replaced (an XML reader refuses the whole file otherwise). */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		size_t n = utf8_seq_len(s);
		if (n != 1) {
			if (n)
				fwrite(s, 1, n, out);
			else
				fputs("\xef\xbf\xbd", out);
			s += n ? n - 1 : 0;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
		}
	}
}

static double name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (double)(h % 1000) / 1000.0;
}

/* FlameGraph's js palette, by what the frame is */
static void colour(const struct profile *p, uint32_t node, const char *name, char *buf, size_t len)
{
	double v = name_hash(name);
	const struct pnode *nd = node ? &p->nodes[node] : NULL;
	int kind = nd && pnode_is_frame(nd) ? p->frames[nd->frame].kind : FK_ROOT;
	int r, g, b;
	switch (kind) {
	case FK_JS: r = 50 + (int)(60 * v); g = 200 + (int)(55 * v); b = 50 + (int)(60 * v); break;
	/* an async function awaiting what is above it: violet */
	case FK_JS_ASYNC: r = 150 + (int)(50 * v); g = 90 + (int)(50 * v); b = 210 + (int)(45 * v); break;
	case FK_JS_INLINED:
	case FK_BUILTIN:
	case FK_V8_TYPED:
	case FK_WASM: r = 50 + (int)(60 * v); g = 165 + (int)(55 * v); b = 165 + (int)(55 * v); break;
	case FK_NATIVE: r = 175 + (int)(55 * v); g = 175 + (int)(55 * v); b = 50 + (int)(20 * v); break;
	case FK_KERNEL: r = 190 + (int)(65 * v); g = 90 + (int)(65 * v); b = 0; break;
	case FK_ROOT: r = 200 + (int)(30 * v); g = 200 + (int)(30 * v); b = 215 + (int)(30 * v); break;
	default: r = 200 + (int)(55 * v); g = 50 + (int)(80 * v); b = g; break;
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", r, g, b);
}

/* The change of a frame's share (percentage points) against the baseline node (NO_NODE: absent
 * there): red grown, blue shrunk, by the change relative to the larger of the two shares. */
static double diff_colour(const struct svg *s, uint32_t node, uint32_t base, char *buf, size_t len)
{
	double now = (double)s->p->nodes[node].total / (double)s->p->samples;
	double then = base == NO_NODE || !s->base->samples ? 0
		      : (double)s->base->nodes[base].total / (double)s->base->samples;
	double larger = now > then ? now : then;
	double r = larger > 0 ? (now - then) / larger : 0; /* -1 … 1 */
	int fade = 255 - (int)(200 * (r < 0 ? -r : r));
	if (r >= 0)
		snprintf(buf, len, "rgb(255,%d,%d)", fade, fade);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", fade, fade);
	return 100.0 * (now - then);
}

static void frame_box(struct svg *s, uint32_t node, uint32_t base, const char *name, uint64_t start,
		      uint64_t n, int depth)
{
	const struct profile *p = s->p;
	double x = PAD + (double)start * s->scale, w = (double)n * s->scale;
	int y = s->height - BOTTOM - (depth + 1) * FRAME_H;
	char fill[48];
	double change = 0;
	if (s->base)
		change = diff_colour(s, node, base, fill, sizeof(fill));
	else
		colour(p, node, name, fill, sizeof(fill));
	fprintf(s->out, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%d\"><title>",
		(unsigned long long)start, (unsigned long long)n, depth);
	xml_text(s->out, name);
	if (s->base)
		fprintf(s->out, " (%+.2f%% of all samples against the baseline)", change);
	fprintf(s->out, " (%llu sample%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
			"height=\"%d\" fill=\"%s\" data-fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">",
		(unsigned long long)n, n == 1 ? "" : "s", 100.0 * (double)n / (double)p->samples, x, y, w,
		FRAME_H - 1, fill, fill, x + 3, y + FRAME_H - 4);
	size_t chars = w > 6 ? (size_t)((w - 6) / 7) : 0;
	if (chars >= 3 && strlen(name) <= chars) {
		xml_text(s->out, name);
	} else if (chars >= 3) {
		char *cut = xstrndup(name, chars - 2);
		xml_text(s->out, cut);
		fputs("..", s->out);
		free(cut);
	}
	fputs("</text></g>\n", s->out);
}

struct kid {
	uint32_t node;
	char *name;
};

static int cmp_kid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->node < y->node ? -1 : 1);
}

/* The child of the baseline's node `base` whose text is `name` (NO_NODE: none). */
static uint32_t base_child(struct svg *s, uint32_t base, const char *name)
{
	if (!s->base || base == NO_NODE)
		return NO_NODE;
	struct strbuf t;
	sb_init(&t);
	uint32_t found = NO_NODE;
	for (uint32_t k = s->base->nodes[base].first_child; k && found == NO_NODE;
	     k = s->base->nodes[k].next_sibling) {
		sb_reset(&t);
		profile_node_text(s->base, k, false, &t);
		if (!strcmp(t.s, name))
			found = k;
	}
	sb_free(&t);
	return found;
}

/* A node and, left to right in name order, its children wide enough to draw; `base` is the same
 * call path's node in the baseline (differential graphs). */
static void draw(struct svg *s, uint32_t node, uint32_t base, const char *name, uint64_t start,
		 int depth)
{
	const struct profile *p = s->p;
	frame_box(s, node, base, name, start, p->nodes[node].total, depth);
	size_t n = 0;
	for (uint32_t k = p->nodes[node].first_child; k; k = p->nodes[k].next_sibling)
		n++;
	if (!n)
		return;
	struct kid *kids = xmalloc(n * sizeof(*kids));
	n = 0;
	for (uint32_t k = p->nodes[node].first_child; k; k = p->nodes[k].next_sibling) {
		sb_reset(&s->text);
		profile_node_text(p, k, false, &s->text);
		kids[n++] = (struct kid){k, xstrdup(s->text.s)};
	}
	if (n > 1)
		qsort(kids, n, sizeof(*kids), cmp_kid);
	uint64_t at = start;
	for (size_t i = 0; i < n; i++) {
		uint64_t width = p->nodes[kids[i].node].total;
		if ((double)width * s->scale >= MIN_WIDTH_PX)
			draw(s, kids[i].node, base_child(s, base, kids[i].name), kids[i].name, at,
			     depth + 1);
		at += width;
		free(kids[i].name);
	}
	free(kids);
}

static int max_depth(const struct profile *p, double scale)
{
	int best = 0;
	int *depth = xcalloc(p->nnodes + 1, sizeof(int));
	for (uint32_t i = 1; i < p->nnodes; i++) {
		/* parents come before their children in the node table */
		depth[i] = depth[p->nodes[i].parent] + 1;
		if ((double)p->nodes[i].total * scale >= MIN_WIDTH_PX && depth[i] > best)
			best = depth[i];
	}
	free(depth);
	return best;
}

static void header(struct svg *s, int width)
{
	const struct profile *p = s->p;
	FILE *out = s->out;
	double secs = (double)(profile_end_ns(p) - profile_start_ns(p)) / 1e9;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init(evt)\" "
		     "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\" data-pad=\"%d\" "
		     "data-total=\"%llu\">\n<style type=\"text/css\">%s</style>\n"
		     "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		     "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n",
		width, s->height, width, s->height, PAD, (unsigned long long)p->samples, svg_style,
		svg_script);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\">v8walk: ", width / 2);
	xml_text(out, p->meta.target);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\">", width / 2);
	if (p->meta.runtime[0]) {
		xml_text(out, p->meta.runtime);
		fputs(" · ", out);
	}
	if (p->meta.stalls_ms > 0) /* a rate over the run means nothing: only stalls were sampled */
		fprintf(out, "%.1f s · %llu samples in the event loop's stalls of %g ms or more (%g Hz "
			     "while stalled)</text>\n",
			secs, (unsigned long long)p->samples, p->meta.stalls_ms, p->meta.rate_hz);
	else
		fprintf(out, "%.1f s · %llu samples · %.1f/s achieved (%g Hz asked, %s)</text>\n",
			secs, (unsigned long long)p->samples, secs > 0 ? (double)p->samples / secs : 0.0,
			p->meta.rate_hz, p->meta.idle ? "wall clock" : "on-CPU");
	fprintf(out, "<text id=\"reset\" class=\"btn hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		     "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search"
		     "</text>\n<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n"
		     "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		PAD, width - PAD, width - PAD, s->height - 12, PAD, s->height - 12);
}

int write_svg(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	int width = wo->svg_width ? (int)wo->svg_width : WIDTH;
	struct svg s = {.p = p, .base = wo->baseline, .out = out};
	s.scale = p->samples ? (double)(width - 2 * PAD) / (double)p->samples : 0;
	s.height = TOP + BOTTOM + (max_depth(p, s.scale) + 1) * FRAME_H;
	sb_init(&s.text);
	header(&s, width);
	if (p->samples)
		draw(&s, 0, 0, "all", 0, 0);
	fputs("</svg>\n", out);
	sb_free(&s.text);
	return ferror(out) ? -1 : 0;
}
