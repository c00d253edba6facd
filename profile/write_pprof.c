/* write_pprof.c — pprof's perftools.profiles.Profile (proto/profile.proto), gzipped: one Sample
 * per distinct stack of a thread (values: samples/count and cpu/nanoseconds; labels pid, tid and
 * thread), one Location per physical frame (native: its address in a Mapping of its module; JS:
 * the function and line, inlined functions as the Location's further Lines, callee first), the
 * Mappings of native modules (range, offset, file, build-id: profile_module), one
 * Function per function (name, system name, file, start line). */
#include "writers.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "../util/xalloc.h"
#include "frame_text.h"
#include "pbuf.h"

struct pprof {
	const struct profile *p;
	struct intern strs;      /* the string table: id 0 is "" */
	struct intern func_keys; /* function identity → id - 1 */
	struct intern loc_keys;  /* chain of frame indices → id - 1 */
	struct u64map mappings;  /* module index + 1 → Mapping id */
	uint64_t nmappings;
	struct pbuf funcs, locs, samples, maps, tmp, line;
	struct strbuf key;
};

static uint64_t str(struct pprof *pp, const char *s)
{
	return intern_str(&pp->strs, s ? s : "");
}

static const char *frame_file(const struct pprof *pp, const struct frame *f)
{
	if (f->kind == FK_KERNEL)
		return "[kernel]";
	return f->file ? intern_get(pp->p->strings, f->file) : "";
}

/* The Function of a frame: a JS function is its name, script and definition line. */
static uint64_t function_id(struct pprof *pp, const struct frame *f)
{
	frame_function_key(f, &pp->key);
	size_t before = pp->func_keys.n;
	uint64_t id = intern_n(&pp->func_keys, pp->key.s, pp->key.len) + 1;
	if (pp->func_keys.n == before)
		return id;
	const char *name = frame_function_name(pp->p->strings, f);
	pb_reset(&pp->tmp);
	pb_uint(&pp->tmp, 1, id);
	pb_uint(&pp->tmp, 2, str(pp, name));
	pb_uint(&pp->tmp, 3, str(pp, name));
	pb_uint(&pp->tmp, 4, str(pp, frame_file(pp, f)));
	if (frame_is_js(f) && f->def_line > 0)
		pb_uint(&pp->tmp, 5, (uint64_t)f->def_line);
	pb_msg(&pp->funcs, 5, &pp->tmp);
	return id;
}

/* A native frame's module as a Mapping: its executable mapping with its build-id. */
static uint64_t mapping_id(struct pprof *pp, pid_t pid, const struct frame *f)
{
	if (f->kind != FK_NATIVE || !f->pc)
		return 0;
	const struct profile_module *m = profile_module_at(pp->p, pid, f->pc);
	if (!m)
		return 0;
	uint64_t index = (uint64_t)(m - pp->p->modules);
	uint64_t v;
	if (u64map_get(&pp->mappings, index + 1, &v))
		return v;
	uint64_t id = ++pp->nmappings;
	u64map_put(&pp->mappings, index + 1, id);
	struct pbuf mp;
	pb_init(&mp);
	pb_uint(&mp, 1, id);
	pb_uint(&mp, 2, m->start);
	pb_uint(&mp, 3, m->limit);
	pb_uint(&mp, 4, m->offset);
	pb_uint(&mp, 5, str(pp, intern_get(pp->p->strings, m->path)));
	pb_uint(&mp, 6, str(pp, m->build_id));
	pb_uint(&mp, 7, 1); /* has_functions: names are in the profile */
	pb_msg(&pp->maps, 3, &mp);
	pb_free(&mp);
	return id;
}

static void add_line(struct pprof *pp, const struct frame *f)
{
	pb_reset(&pp->line);
	pb_uint(&pp->line, 1, function_id(pp, f));
	if (frame_is_js(f) && f->line > 0)
		pb_uint(&pp->line, 2, (uint64_t)f->line);
	if (frame_is_js(f) && f->col > 0)
		pb_uint(&pp->line, 3, (uint64_t)f->col);
}

/* The Location of one physical frame: frames[from..to] of the path, innermost first, the
 * inlined ones then the frame that holds them. */
static uint64_t location_id(struct pprof *pp, pid_t pid, const uint32_t *frames, size_t count)
{
	sb_reset(&pp->key);
	for (size_t i = 0; i < count; i++)
		sb_printf(&pp->key, "%u,", frames[i]);
	size_t before = pp->loc_keys.n;
	uint64_t id = intern_n(&pp->loc_keys, pp->key.s, pp->key.len) + 1;
	if (pp->loc_keys.n == before)
		return id;
	const struct frame *outer = &pp->p->frames[frames[count - 1]];
	struct pbuf loc;
	pb_init(&loc);
	pb_uint(&loc, 1, id);
	uint64_t map = mapping_id(pp, pid, outer);
	if (map)
		pb_uint(&loc, 2, map);
	/* JS frames have no address of their own (interpreted ones share a handler's): their
	 * Location is the function and line */
	if (outer->pc && !frame_is_js(outer))
		pb_uint(&loc, 3, outer->pc);
	for (size_t i = 0; i < count; i++) {
		add_line(pp, &pp->p->frames[frames[i]]);
		pb_msg(&loc, 4, &pp->line);
	}
	pb_msg(&pp->locs, 4, &loc);
	pb_free(&loc);
	return id;
}

static void label(struct pprof *pp, struct pbuf *sample, const char *key, const char *s, int64_t num)
{
	pb_reset(&pp->tmp);
	pb_uint(&pp->tmp, 1, str(pp, key));
	if (s)
		pb_uint(&pp->tmp, 2, str(pp, s));
	else
		pb_uint(&pp->tmp, 3, (uint64_t)num);
	pb_msg(sample, 3, &pp->tmp);
}

/* One Sample for a node with samples of its own. */
static void add_sample(struct pprof *pp, uint32_t leaf, uint32_t *frames, uint64_t *locs,
		       uint64_t period)
{
	const struct profile *p = pp->p;
	size_t nf = 0, nl = 0;
	for (uint32_t k = leaf; k && pnode_is_frame(&p->nodes[k]); k = p->nodes[k].parent)
		frames[nf++] = p->nodes[k].frame;
	/* group: inlined frames belong to the next (outer) JS frame */
	for (size_t i = 0; i < nf;) {
		size_t j = i;
		while (j + 1 < nf && p->frames[frames[j]].kind == FK_JS_INLINED)
			j++;
		locs[nl++] = location_id(pp, profile_node_thread(p, leaf)->pid, frames + i, j - i + 1);
		i = j + 1;
	}
	const struct pnode *nd = &p->nodes[leaf];
	const struct profile_thread *t = profile_node_thread(p, leaf);
	struct pbuf s;
	pb_init(&s);
	pb_packed(&s, 1, locs, nl);
	uint64_t values[2] = {nd->self, nd->self * period};
	pb_packed(&s, 2, values, 2);
	label(pp, &s, "pid", NULL, t->pid);
	label(pp, &s, "tid", NULL, t->tid);
	label(pp, &s, "thread", intern_get(p->strings, t->role), 0);
	label(pp, &s, "process", intern_get(p->strings, t->process_name), 0);
	if (t->container)
		label(pp, &s, "container", intern_get(p->strings, t->container - 1), 0);
	pb_msg(&pp->samples, 2, &s);
	pb_free(&s);
}

static void value_type(struct pprof *pp, struct pbuf *out, uint32_t field, const char *type,
		       const char *unit)
{
	pb_reset(&pp->tmp);
	pb_uint(&pp->tmp, 1, str(pp, type));
	pb_uint(&pp->tmp, 2, str(pp, unit));
	pb_msg(out, field, &pp->tmp);
}

static uint64_t wall_ns_of(uint64_t mono_ns)
{
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	uint64_t now_rt = (uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec;
	uint64_t now_mt = (uint64_t)mt.tv_sec * 1000000000ULL + (uint64_t)mt.tv_nsec;
	return mono_ns && mono_ns <= now_mt ? now_rt - (now_mt - mono_ns) : now_rt;
}

/* The header: sample types, time and duration, the period, a comment naming the run. */
static void encode(struct pprof *pp, struct pbuf *out, uint64_t period)
{
	const struct profile *p = pp->p;
	value_type(pp, out, 1, "samples", "count");
	value_type(pp, out, 1, "cpu", "nanoseconds");
	uint64_t start = profile_start_ns(p), end = profile_end_ns(p);
	pb_uint(out, 9, wall_ns_of(start));
	pb_uint(out, 10, end - start);
	value_type(pp, out, 11, "cpu", "nanoseconds");
	pb_uint(out, 12, period);
	char comment[512];
	snprintf(comment, sizeof(comment), "v8walk: %s%s%s", p->meta.target,
		 p->meta.runtime[0] ? "; " : "", p->meta.runtime);
	pb_uint(out, 13, str(pp, comment));
}

static int gzip_to(FILE *out, const uint8_t *data, size_t len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	uint8_t buf[1 << 16];
	z.next_in = (uint8_t *)data;
	z.avail_in = (uInt)len;
	int rc;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		fwrite(buf, 1, sizeof(buf) - z.avail_out, out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return rc == Z_STREAM_END && !ferror(out) ? 0 : -1;
}

int write_pprof(const struct profile *p, const struct write_opts *wo, FILE *out)
{
	(void)wo;
	struct pprof pp;
	memset(&pp, 0, sizeof(pp));
	pp.p = p;
	intern_init(&pp.strs);
	intern_init(&pp.func_keys);
	intern_init(&pp.loc_keys);
	u64map_init(&pp.mappings, 0);
	sb_init(&pp.key);
	str(&pp, "");
	uint64_t period = p->meta.rate_hz > 0 ? (uint64_t)(1e9 / p->meta.rate_hz) : 10000000;
	uint32_t *frames = xmalloc(sizeof(*frames) * (p->nnodes + 1));
	uint64_t *locs = xmalloc(sizeof(*locs) * (p->nnodes + 1));
	for (uint32_t i = 1; i < p->nnodes; i++)
		if (p->nodes[i].self)
			add_sample(&pp, i, frames, locs, period);
	free(frames);
	free(locs);
	struct pbuf all;
	pb_init(&all);
	encode(&pp, &all, period);
	struct pbuf body;
	pb_init(&body);
	/* field order does not matter to readers; the string table goes last, complete */
	pb_append(&body, &pp.samples);
	pb_append(&body, &all);
	pb_append(&body, &pp.maps);
	pb_append(&body, &pp.locs);
	pb_append(&body, &pp.funcs);
	for (size_t i = 0; i < pp.strs.n; i++) {
		const char *s = intern_get(&pp.strs, (uint32_t)i);
		pb_bytes(&body, 6, s, strlen(s));
	}
	int rc = gzip_to(out, body.b, body.n);
	pb_free(&body);
	pb_free(&all);
	pb_free(&pp.funcs);
	pb_free(&pp.locs);
	pb_free(&pp.samples);
	pb_free(&pp.tmp);
	pb_free(&pp.line);
	pb_free(&pp.maps);
	u64map_free(&pp.mappings);
	sb_free(&pp.key);
	intern_free(&pp.strs);
	intern_free(&pp.func_keys);
	intern_free(&pp.loc_keys);
	return rc;
}
