/* inlining.c — expanding inlined frames from deoptimization data. */
#include "inlining.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"
#include "spt.h"

enum { INLINING_RECORD = 16, MAX_INLINING_DEPTH = 64, MAX_RECORDS = 4096 };

static bool deopt_get(const struct v8_heap *h, uint64_t deopt, enum v8_item index, uint64_t *v)
{
	if (!v8_has(h->L, index))
		return false;
	int64_t i = h->L->v[index], n = v8_array_length(h, deopt);
	return i >= 0 && i < n && v8_array_get(h, deopt, i, v);
}

uint64_t deopt_outer_sfi(const struct v8_heap *h, uint64_t deopt)
{
	if (!v8_is_heap_object(deopt) || !v8_is_fixed_array_like(h, deopt))
		return 0;
	uint64_t v;
	if (deopt_get(h, deopt, L_DEOPT_SFI, &v) && v8_is(h, v, L_T_SFI))
		return v;
	/* V8 >= 12.6: the SharedFunctionInfo lives outside trusted space, behind a wrapper */
	uint64_t sfi;
	if (deopt_get(h, deopt, L_DEOPT_WRAPPED_SFI, &v) && v8_is(h, v, L_T_SFI_WRAPPER) &&
	    v8_has(h->L, L_SFI_WRAPPER_SFI) && v8_field(h, v, h->L->v[L_SFI_WRAPPER_SFI], &sfi) &&
	    v8_is(h, sfi, L_T_SFI))
		return sfi;
	return 0;
}

/* Inlined function id → SharedFunctionInfo: a literal (a weak reference from V8 11.9), taken
 * from the literal array's copy lits[0..nl); 0 when it is not one. */
static uint64_t literal_sfi(const uint64_t *lits, int64_t nl, int32_t id)
{
	if (id < 0 || id >= nl)
		return 0;
	uint64_t v = lits[id];
	return v8_is_weak(v) ? v8_strong(v) : v;
}

/* The SharedFunctionInfos of the records, checked by type. Their map words are copied in one
 * batch first: a decoding of code with k inlined functions was k + 4 reads of the target, one
 * per SFI (they lie apart in old space), now 5. */
static void resolve_sfis(const struct v8_heap *h, uint64_t literals, const int32_t *ids,
			 struct inline_record *rec, int64_t n)
{
	int64_t nl = v8_array_length(h, literals);
	if (nl <= 0 || nl > MAX_RECORDS)
		return;
	uint64_t *lits = xmalloc((size_t)nl * 8);
	uint64_t *addrs = xmalloc((size_t)n * sizeof(*addrs));
	uint32_t *lens = xmalloc((size_t)n * sizeof(*lens));
	size_t na = 0;
	if (v8_read_obj(h, literals, h->L->v[L_FIXED_ARRAY_DATA], lits, (size_t)nl * 8)) {
		for (int64_t i = 0; i < n; i++) {
			uint64_t v = literal_sfi(lits, nl, ids[i]);
			if (v8_is_heap_object(v)) {
				addrs[na] = v - 1 + (uint64_t)(int64_t)h->L->v[L_HEAPOBJECT_MAP];
				lens[na++] = 8;
			}
		}
		mem_prefetch(h->mem, addrs, lens, na);
		for (int64_t i = 0; i < n; i++) {
			uint64_t v = literal_sfi(lits, nl, ids[i]);
			if (ids[i] >= 0 && v8_is_heap_object(v) && v8_is(h, v, L_T_SFI))
				rec[i].sfi = v;
		}
	}
	free(lits);
	free(addrs);
	free(lens);
}

bool inlining_load(const struct v8_heap *h, uint64_t deopt, struct inlining_data *d)
{
	memset(d, 0, sizeof(*d));
	d->outer = deopt_outer_sfi(h, deopt);
	if (!d->outer)
		return false;
	uint64_t count, literals, records;
	if (!deopt_get(h, deopt, L_DEOPT_INLINED_COUNT, &count) || !v8_is_smi(count) ||
	    v8_smi_value(count) <= 0 || !deopt_get(h, deopt, L_DEOPT_LITERALS, &literals) ||
	    !v8_is_fixed_array_like(h, literals) || !deopt_get(h, deopt, L_DEOPT_INLINING_POS, &records) ||
	    !v8_is_byte_array_like(h, records))
		return true; /* nothing inlined, or nothing readable: positions stay in the outer function */
	int64_t n = v8_array_length(h, records) / INLINING_RECORD;
	if (n <= 0 || n > MAX_RECORDS)
		return true;
	struct {
		uint64_t position;
		int32_t function_id;
		int32_t pad;
	} *raw = xmalloc((size_t)n * INLINING_RECORD);
	if (v8_read_obj(h, records, h->L->v[L_FIXED_ARRAY_DATA], raw, (size_t)n * INLINING_RECORD)) {
		d->records = xcalloc((size_t)n, sizeof(*d->records));
		d->nrecords = (int)n;
		int32_t *ids = xmalloc((size_t)n * sizeof(*ids));
		for (int64_t i = 0; i < n; i++) {
			d->records[i].position = raw[i].position;
			ids[i] = raw[i].function_id;
			if (ids[i] < 0)
				d->records[i].sfi = d->outer;
		}
		resolve_sfis(h, literals, ids, d->records, n);
		free(ids);
	}
	free(raw);
	return true;
}

void inlining_free(struct inlining_data *d)
{
	free(d->records);
	memset(d, 0, sizeof(*d));
}

int inlining_expand(const struct inlining_data *d, uint64_t position, struct inline_frame *out,
		    int max)
{
	if (!d->outer || max <= 0)
		return 0;
	int n = 0;
	int32_t id = srcpos_inlining_id(position), last = INT32_MAX;
	while (id >= 0 && n < max - 1 && n < MAX_INLINING_DEPTH) {
		/* ids strictly decrease towards the outermost function: anything else is garbage */
		if (id >= last || id >= d->nrecords || !d->records[id].sfi)
			break;
		out[n++] = (struct inline_frame){d->records[id].sfi, srcpos_script_offset(position), true};
		last = id;
		position = d->records[id].position;
		id = srcpos_inlining_id(position);
	}
	/* an expansion that stopped early leaves the outermost position unknown */
	out[n++] = (struct inline_frame){d->outer, id >= 0 ? -1 : srcpos_script_offset(position), false};
	return n;
}
