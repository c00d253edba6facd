/* store.c — the per-script source map cache and its use on frames. */
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/clock.h"
#include "../util/xalloc.h"
#include "data_url.h"
#include "locate.h"
#include "safe_read.h"
#include "script_text.h"

/* SMS_UNREAD: the script's source could not be read (after reading the Script again); looked
 * for again on later lookups, up to SM_SOURCE_LOADS times in all */
enum sm_state { SMS_NONE, SMS_LOADED, SMS_FAILED, SMS_UNREAD };

enum {
	SOURCE_REREADS = 3, /* reads of the Script for a source that moved, within one load */
	SM_SOURCE_LOADS = 4,
};

struct sm_script {
	uint64_t addr, source_ptr;
	uint8_t state;
	uint8_t loads; /* loads tried (a source that could not be read is tried again) */
	struct sourcemap map;
	char *base;           /* what relative sources resolve against (a path, or NULL) */
	uint32_t *source_ids; /* interned display names of the sources, 0 = not yet */
	uint32_t alias;       /* index + 1 of the entry that loaded the same map (a Script GC moved,
			       * or a second Script of one file), 0 = this one */
};

void sm_store_init(struct sm_store *s, struct intern *strings, struct script_cache *scripts,
		   struct memsrc *mem, const struct v8_layout *L, const char *root)
{
	memset(s, 0, sizeof(*s));
	s->strings = strings;
	s->scripts = scripts;
	s->mem = mem;
	s->L = L;
	snprintf(s->root, sizeof(s->root), "%s", root ? root : "");
	s->budget = SM_DEFAULT_BUDGET;
	u64map_init(&s->idx, 0);
	u64map_init(&s->by_key, 0);
}

void sm_store_init_live(struct sm_store *s, struct intern *strings, struct script_cache *scripts,
			const struct v8_layout *L, pid_t pid)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	sm_store_init(s, strings, scripts, NULL, L, root);
	memsrc_live_init(&s->live, pid);
	s->mem = &s->live.base;
	s->own_live = true;
}

static void drop(struct sm_script *e)
{
	sourcemap_free(&e->map);
	free(e->base);
	free(e->source_ids);
	e->base = NULL;
	e->source_ids = NULL;
}

void sm_store_free(struct sm_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		drop(&s->v[i]);
	free(s->v);
	u64map_free(&s->idx);
	u64map_free(&s->by_key);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	if (s->own_live)
		memsrc_live_close(&s->live);
	memset(s, 0, sizeof(*s));
}

static void failed(struct sm_store *s, struct sm_script *e, enum sm_failure why_kind,
		   const char *file, const char *why)
{
	e->state = SMS_FAILED;
	s->st.failed[why_kind]++;
	if (s->nnotes < SM_MAX_NOTES) {
		struct strbuf b;
		sb_init(&b);
		sb_printf(&b, "%s: %s", file, why);
		s->notes[s->nnotes++] = sb_take(&b);
	}
}

static void loaded(struct sm_store *s, struct sm_script *e, const char *base)
{
	s->st.bytes += sourcemap_bytes(&e->map);
	s->st.loaded++;
	e->state = SMS_LOADED;
	e->base = base && *base ? xstrdup(base) : NULL;
	e->source_ids = xcalloc(e->map.sources.n ? e->map.sources.n : 1, sizeof(uint32_t));
}

/* Has another entry loaded (or failed to load) this map — the same file, or the same script's
 * inline map? Then e shares its outcome, which is counted and reported once. */
static bool same_map_loaded(struct sm_store *s, struct sm_script *e, enum sm_where where,
			    const char *script_name, const char *path)
{
	struct strbuf key;
	sb_init(&key);
	sb_printf(&key, "%s%s", where == SM_AT_FILE ? "file:" : "script:",
		  where == SM_AT_FILE ? path : script_name);
	uint64_t id = (uint64_t)intern_n(s->strings, key.s, key.len) + 1, k;
	sb_free(&key);
	size_t self = (size_t)(e - s->v);
	if (u64map_get(&s->by_key, id, &k) && k - 1 != self) {
		e->alias = (uint32_t)k;
		e->state = s->v[k - 1].state;
		return true;
	}
	u64map_put(&s->by_key, id, self + 1);
	return false;
}

/* The tail of e's source. The source string the walk saw may have moved since, while the target
 * ran (a young string a scavenge copied: the old copy no longer reads as a string), so when it
 * cannot be read the Script is read again for its source now, a few times. */
static bool read_tail(struct sm_store *s, const struct v8_heap *h, struct sm_script *e,
		      struct strbuf *tail)
{
	for (int reread = 0;; reread++) {
		if (e->source_ptr && sm_source_tail(h, e->source_ptr, SM_MAX_TAIL_UNITS, tail))
			return true;
		const struct v8_script *now;
		if (reread == SOURCE_REREADS || !s->L || !(now = script_get(s->scripts, h, e->addr)) ||
		    now->source_ptr == e->source_ptr)
			return false;
		e->source_ptr = now->source_ptr;
	}
}

/* Find, read and decode the map of script sc into e. */
static void load(struct sm_store *s, struct sm_script *e, const struct v8_script *sc)
{
	const char *name = intern_get(s->strings, sc->name_id);
	if (!*name || strncmp(name, "node:", 5) == 0 || !sc->source_ptr)
		return; /* node's own scripts carry no maps */
	struct v8_heap h = {.mem = s->mem, .L = s->L};
	struct strbuf tail, path, json;
	sb_init(&tail);
	sb_init(&path);
	sb_init(&json);
	const char *url, *why = NULL;
	size_t ulen;
	e->loads++;
	bool was_unread = e->state == SMS_UNREAD;
	if (!read_tail(s, &h, e, &tail)) {
		if (!was_unread)
			s->st.unread++;
		e->state = SMS_UNREAD;
		goto out;
	}
	if (was_unread)
		s->st.unread--;
	e->state = SMS_NONE;
	if (!sm_find_comment(tail.s, tail.len, &url, &ulen))
		goto out;
	enum sm_where where = sm_resolve_map_url(name, url, ulen, &path, &why);
	if (same_map_loaded(s, e, where, name, path.s))
		goto out;
	s->st.scripts++;
	if (where == SM_AT_NONE) {
		failed(s, e, SMF_UNREADABLE, name, why);
		goto out;
	}
	if (s->st.bytes >= s->budget) {
		failed(s, e, SMF_BUDGET, name, "the memory budget for source maps was spent");
		goto out;
	}
	const char *shown = where == SM_AT_INLINE ? name : path.s;
	if (where == SM_AT_INLINE) {
		if (!data_url_decode(url, ulen, SM_MAX_MAP_BYTES, &json, &why)) {
			failed(s, e, SMF_MALFORMED, shown, why);
			goto out;
		}
	} else {
		enum sm_read_result r = sm_read_file(s->root, path.s, SM_MAX_MAP_BYTES, &json, &why);
		if (r != SR_OK) {
			failed(s, e, r == SR_MISSING ? SMF_MISSING : SMF_UNREADABLE, shown, why);
			goto out;
		}
	}
	if (!sourcemap_parse(&e->map, json.len ? json.s : "", json.len, &why)) {
		failed(s, e, SMF_MALFORMED, shown, why);
		goto out;
	}
	size_t bytes = sourcemap_bytes(&e->map);
	if (s->st.bytes + bytes > s->budget) {
		sourcemap_free(&e->map);
		failed(s, e, SMF_BUDGET, shown, "the memory budget for source maps was spent");
		goto out;
	}
	struct strbuf base;
	sb_init(&base);
	if (where == SM_AT_FILE)
		sb_add(&base, path.s);
	else if (!sm_script_path(name, &base))
		sb_reset(&base);
	loaded(s, e, base.len ? base.s : NULL);
	sb_free(&base);
out:
	sb_free(&tail);
	sb_free(&path);
	sb_free(&json);
}

static void timed_load(struct sm_store *s, struct sm_script *e, const struct v8_script *sc)
{
	e->source_ptr = sc->source_ptr;
	uint64_t t0 = now_ns();
	load(s, e, sc);
	s->st.load_ns += now_ns() - t0;
}

static struct sm_script *new_entry(struct sm_store *s, uint64_t addr)
{
	if (s->n >= SM_MAX_SCRIPTS)
		return NULL;
	XGROW(s->v, s->cap, s->n + 1);
	struct sm_script *e = &s->v[s->n++];
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	u64map_put(&s->idx, addr, s->n);
	return e;
}

static struct sm_script *script_entry(struct sm_store *s, uint64_t addr)
{
	/* the walker's script cache knows the Script (it named the frame); after it was emptied,
	 * the Script is read again (the target runs: reading is safe, a stale read fails) */
	struct v8_script *sc = NULL;
	if (s->L && !(sc = script_cached(s->scripts, addr))) {
		struct v8_heap h = {.mem = s->mem, .L = s->L};
		sc = script_get(s->scripts, &h, addr);
	}
	uint64_t k;
	struct sm_script *e = NULL;
	if (u64map_get(&s->idx, addr, &k)) {
		e = &s->v[k - 1];
		if (e->state == SMS_UNREAD && e->loads < SM_SOURCE_LOADS && sc) {
			/* its source could not be read: perhaps it can now */
			timed_load(s, e, sc);
			return e->alias ? &s->v[e->alias - 1] : e;
		}
		if (!sc || e->source_ptr == sc->source_ptr)
			return e->alias ? &s->v[e->alias - 1] : e;
		/* another script now lives at this address: a new entry (the old one may be shared) */
		if (!(e = new_entry(s, addr)))
			return NULL;
	} else if (!sc || !(e = new_entry(s, addr))) {
		return NULL;
	}
	timed_load(s, e, sc);
	return e->alias ? &s->v[e->alias - 1] : e;
}

bool sm_store_put(struct sm_store *s, uint64_t script_addr, struct sourcemap *map, const char *base)
{
	uint64_t k;
	struct sm_script *e = u64map_get(&s->idx, script_addr, &k) ? NULL : new_entry(s, script_addr);
	if (!e)
		return false;
	e->map = *map;
	sourcemap_init(map);
	s->st.scripts++;
	loaded(s, e, base);
	return true;
}

const struct sourcemap *sm_store_map(struct sm_store *s, uint64_t script_addr)
{
	struct sm_script *e = script_entry(s, script_addr);
	return e && e->state == SMS_LOADED ? &e->map : NULL;
}

static bool is_js(const struct frame *f)
{
	return f->kind == FK_JS || f->kind == FK_JS_INLINED || f->kind == FK_JS_ASYNC;
}

static const struct sm_entry *find_1based(const struct sourcemap *m, int32_t line, int32_t col)
{
	if (line <= 0 || col <= 0)
		return NULL;
	return sourcemap_find(m, (uint32_t)line - 1, (uint32_t)col - 1);
}

static uint32_t source_id(struct sm_store *s, struct sm_script *e, uint32_t src)
{
	if (!e->source_ids[src]) {
		struct strbuf b;
		sb_init(&b);
		sm_resolve_source(e->base, sm_string(&e->map.sources, src), &b);
		e->source_ids[src] = intern_n(s->strings, b.s, b.len);
		sb_free(&b);
	}
	return e->source_ids[src];
}

/* Node's getOriginalSymbolName: the name mapped at the function's definition, else the one
 * mapped at its caller's call site when the caller is in the same script. */
static uint32_t original_name(const struct sourcemap *m, const struct frame *f,
			      const struct frame *caller)
{
	const struct sm_entry *d = find_1based(m, f->def_line, f->def_col);
	if (d && d->name != SM_NONE)
		return d->name;
	if (!caller || caller->script != f->script)
		return SM_NONE;
	int32_t line = caller->gen_file ? caller->gen_line : caller->line;
	int32_t col = caller->gen_file ? caller->gen_col : caller->col;
	const struct sm_entry *c = find_1based(m, line, col);
	return c ? c->name : SM_NONE;
}

static void set_name(struct sm_store *s, struct frame *f, const char *name)
{
	const char *old = intern_get(s->strings, f->name);
	struct strbuf b;
	sb_init(&b);
	if (strncmp(old, "new ", 4) == 0)
		sb_add(&b, "new ");
	else if (strncmp(old, "async ", 6) == 0)
		sb_add(&b, "async ");
	sb_add(&b, name);
	f->name = intern_n(s->strings, b.s, b.len);
	sb_free(&b);
}

void sm_apply(struct sm_store *s, struct frame *f, int n)
{
	for (int i = 0; i < n; i++) {
		struct frame *fr = &f[i];
		if (!is_js(fr) || !fr->script || fr->gen_file)
			continue;
		struct sm_script *e = script_entry(s, fr->script);
		if (!e || e->state != SMS_LOADED)
			continue;
		const struct sm_entry *at = find_1based(&e->map, fr->line, fr->col);
		if (!at || at->src == SM_NONE) {
			s->st.unmapped_frames++;
			continue;
		}
		s->st.mapped_frames++;
		const struct frame *caller = NULL;
		for (int k = i + 1; k < n && !caller; k++)
			if (is_js(&f[k]))
				caller = &f[k];
		uint32_t name = original_name(&e->map, fr, caller);
		const struct sm_entry *def = find_1based(&e->map, fr->def_line, fr->def_col);
		fr->gen_file = fr->file;
		fr->gen_line = fr->line;
		fr->gen_col = fr->col;
		fr->file = source_id(s, e, at->src);
		fr->line = (int32_t)at->orig_line + 1;
		fr->col = (int32_t)at->orig_col + 1;
		if (def && def->src != SM_NONE) {
			fr->def_line = (int32_t)def->orig_line + 1;
			fr->def_col = (int32_t)def->orig_col + 1;
		}
		if (name != SM_NONE)
			set_name(s, fr, sm_string(&e->map.names, name));
	}
}

void sm_store_summary(const struct sm_store *s, FILE *out)
{
	const struct sm_stats *st = &s->st;
	if (st->unread)
		fprintf(out, "v8walk: source maps: the source of %lu scripts could not be read from the "
			"process (it moved as the process ran, or it is damaged): their maps were not "
			"looked for\n", st->unread);
	if (!st->scripts)
		return;
	unsigned long nfailed = 0;
	for (int i = 0; i < SMF_COUNT; i++)
		nfailed += st->failed[i];
	fprintf(out,
		"v8walk: source maps: %lu of %lu scripts with a sourceMappingURL had their map "
		"loaded (%.1f MB, %.1f ms); %lu failed (%lu missing, %lu unreadable, %lu malformed, "
		"%lu over the memory budget)\n",
		st->loaded, st->scripts, (double)st->bytes / 1048576.0, (double)st->load_ns / 1e6,
		nfailed, st->failed[SMF_MISSING], st->failed[SMF_UNREADABLE], st->failed[SMF_MALFORMED],
		st->failed[SMF_BUDGET]);
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(out, "v8walk: source map not used: %s\n", s->notes[i]);
	if (nfailed > s->nnotes)
		fprintf(out, "v8walk: (%lu more source map failures not listed)\n", nfailed - s->nnotes);
}
