/* stall_rows.c — a stall as a PREFIX_stalls row (stall_rows.h). */
#include "stall_rows.h"

#include <stdlib.h>
#include <string.h>

#include "../profile/frame_text.h"
#include "../util/xalloc.h"
#include "rowbinary.h"

struct counted {
	uint64_t *hash, *count;
	size_t n, cap;
};

static void keep_hash(void *ctx, uint64_t hash, uint64_t count)
{
	struct counted *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->hash = xrealloc(c->hash, c->cap * sizeof(*c->hash));
		c->count = xrealloc(c->count, c->cap * sizeof(*c->count));
	}
	c->hash[c->n] = hash;
	c->count[c->n++] = count;
}

static void put_name(struct strbuf *rows, const struct intern *strings, uint32_t name)
{
	struct strview v = name ? intern_view(strings, name) : (struct strview){"", 0};
	rb_put_string(rows, v.s, v.len);
}

void stall_row_add(struct strbuf *rows, struct row_context *rc, const struct intern *strings,
		   const struct stall_report *r, int64_t start_unix_ms)
{
	rb_put_u32(rows, (uint32_t)(start_unix_ms / 1000));
	rb_put_u64(rows, (uint64_t)start_unix_ms);
	row_put_origin(rows, rc, r->pid, r->container ? intern_view(strings, r->container - 1)
						      : (struct strview){"", 0});
	rb_put_u32(rows, (uint32_t)r->pid);
	rb_put_u32(rows, (uint32_t)r->pid); /* the main thread's */
	put_name(rows, strings, r->process_name);
	rb_put_string(rows, "main", 4);
	rb_put_f64(rows, (double)r->duration_ns / 1e6);
	rb_put_u8(rows, r->began_before);
	rb_put_u8(rows, r->unfinished);
	rb_put_u32(rows, (uint32_t)r->samples);
	rb_put_u32(rows, (uint32_t)r->classes[STALL_JS]);
	rb_put_u32(rows, (uint32_t)r->classes[STALL_GC]);
	rb_put_u32(rows, (uint32_t)r->classes[STALL_NATIVE]);
	rb_put_u32(rows, (uint32_t)r->classes[STALL_BUILTIN]);
	put_name(rows, strings, r->class_frame[STALL_NATIVE]);
	put_name(rows, strings, r->class_frame[STALL_BUILTIN]);
	struct strbuf text;
	sb_init(&text);
	rb_put_varuint(rows, (uint64_t)r->nchain);
	for (int i = 0; i < r->nchain; i++) {
		sb_reset(&text);
		frame_text(strings, &r->chain[i], false, &text);
		rb_put_string(rows, text.s ? text.s : "", text.len);
	}
	sb_free(&text);
	struct counted c = {0};
	if (r->prof)
		profile_stack_hashes(r->prof, keep_hash, &c);
	rb_put_varuint(rows, c.n);
	for (size_t i = 0; i < c.n; i++)
		rb_put_u64(rows, c.hash[i]);
	rb_put_varuint(rows, c.n);
	for (size_t i = 0; i < c.n; i++)
		rb_put_u64(rows, c.count[i]);
	free(c.hash);
	free(c.count);
}
