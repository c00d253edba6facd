/* fake_heap.c — the synthetic heap used by unit tests. */
#include "fake_heap.h"

#include <stdlib.h>
#include <string.h>

/* Node 20 (V8 11.3) values for the items the decoder reads */
static const char *const names[] = {
    "SmiShiftSize", "TaggedSize", "HeapObjectTag", "off_fp_context_or_frame_type",
    "off_fp_function", "off_fp_args", "off_fp_bytecode_array", "off_fp_bytecode_offset",
    "class_HeapObject__map__Map", "class_Map__instance_type__uint16_t",
    "class_FixedArrayBase__length__SMI", "class_FixedArray__data__uintptr_t",
    "class_JSFunction__shared__SharedFunctionInfo", "class_JSFunction__context__Context",
    "class_SharedFunctionInfo__name_or_scope_info__Object",
    "class_SharedFunctionInfo__script_or_debug_info__HeapObject",
    "class_SharedFunctionInfo__function_data__Object",
    "class_SharedFunctionInfo__raw_function_token_offset__int16_t",
    "class_Script__source__Object", "class_Script__name__Object", "class_Script__line_ends__Object",
    "scopeinfo_idx_nparams", "scopeinfo_idx_ncontextlocals", "scopeinfo_idx_first_vars",
    "class_String__length__int32_t", "class_SeqOneByteString__chars__char",
    "class_SeqTwoByteString__chars__char", "class_ConsString__first__String",
    "class_ConsString__second__String", "class_SlicedString__parent__String",
    "class_SlicedString__offset__SMI", "class_ThinString__actual__String",
    "class_ExternalString__resource__Object", "StringRepresentationMask", "SeqStringTag",
    "ConsStringTag", "ExternalStringTag", "SlicedStringTag", "ThinStringTag",
    "StringEncodingMask", "OneByteStringTag", "FirstNonstringType",
    "type_JSFunction__JS_FUNCTION_TYPE", "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE",
    "type_Script__SCRIPT_TYPE", "type_ScopeInfo__SCOPE_INFO_TYPE", "type_FixedArray__FIXED_ARRAY_TYPE",
    "type_Map__MAP_TYPE", "type_Oddball__ODDBALL_TYPE", "frametype_EntryFrame", "frametype_ExitFrame",
    "frametype_InterpretedFrame", "frametype_StubFrame", "frametype_TurbofanFrame",
    "class_Oddball__kind_offset__int", "OddballUndefined", "OddballNull", "OddballTrue",
    "OddballFalse",
};
static const int32_t values[] = {
    31, 8, 1, -8, -16, 16, -32, -40, 0, 12, 8, 16, 24, 32, 16, 32, 8, 44, 8, 16, 56, 1, 2, 3,
    12, 16, 16, 16, 24, 16, 24, 16, 16, 7, 0, 1, 2, 3, 5, 8, 8, 128,
    FT_JSFUNCTION, FT_SFI, FT_SCRIPT, FT_SCOPE_INFO, FT_FIXED_ARRAY, FT_MAP, FT_ODDBALL, 1, 3, 13,
    17, 16, 40, 5, 3, 1, 0,
};

static ssize_t fh_read(struct memsrc *m, uint64_t addr, void *buf, size_t len)
{
	struct fake_heap *fh = (struct fake_heap *)m;
	fh->reads++;
	if (addr < fh->start || addr >= fh->start + fh->used)
		return -1;
	size_t avail = fh->start + fh->used - addr;
	size_t n = len < avail ? len : avail;
	memcpy(buf, fh->mem + (addr - fh->start), n);
	return (ssize_t)n;
}

static const struct memsrc_ops fh_ops = {.read = fh_read};

void fh_init(struct fake_heap *fh)
{
	memset(fh, 0, sizeof(*fh));
	fh->base.ops = &fh_ops;
	fh->start = 0x100000;
	fh->size = 1 << 22;
	fh->mem = calloc(1, fh->size);
	_Static_assert(sizeof(names) / sizeof(names[0]) == sizeof(values) / sizeof(values[0]),
		       "names and values");
	v8md_from_pairs(&fh->md, names, values, sizeof(values) / sizeof(values[0]));
	struct v8_version v = {11, 3, 244, 8};
	v8_layout_resolve(&fh->L, &fh->md, &v);
	fh->h.mem = &fh->base;
	fh->h.L = &fh->L;
	/* the meta map: a map whose map is itself */
	fh->meta_map = fh_alloc(fh, 80);
	fh_set(fh, fh->meta_map, 0, fh->meta_map);
	fh_set32(fh, fh->meta_map, 12, FT_MAP);
}

void fh_set_item(struct v8_layout *L, enum v8_item item, int32_t v)
{
	L->v[item] = v;
	L->src[item] = SRC_OVERRIDE;
}

void fh_free(struct fake_heap *fh)
{
	v8_layout_free(&fh->L);
	v8md_free(&fh->md);
	free(fh->mem);
}

void *fh_ptr(struct fake_heap *fh, uint64_t addr)
{
	return fh->mem + (addr - fh->start);
}

uint64_t fh_alloc(struct fake_heap *fh, size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (fh->used + size > fh->size)
		abort();
	uint64_t addr = fh->start + fh->used;
	fh->used += size;
	return addr + 1;
}

uint64_t fh_raw(struct fake_heap *fh, const void *data, size_t n)
{
	uint64_t p = fh_alloc(fh, n) - 1;
	memcpy(fh_ptr(fh, p), data, n);
	return p;
}

void fh_set(struct fake_heap *fh, uint64_t obj, int off, uint64_t v)
{
	memcpy(fh_ptr(fh, obj - 1 + off), &v, 8);
}

void fh_set32(struct fake_heap *fh, uint64_t obj, int off, uint32_t v)
{
	uint16_t t = (uint16_t)v;
	if (off == 12) /* instance type is a u16 */
		memcpy(fh_ptr(fh, obj - 1 + off), &t, 2);
	else
		memcpy(fh_ptr(fh, obj - 1 + off), &v, 4);
}

uint64_t fh_map(struct fake_heap *fh, int type)
{
	uint64_t m = fh_alloc(fh, 80);
	fh_set(fh, m, 0, fh->meta_map);
	fh_set32(fh, m, 12, (uint32_t)type);
	return m;
}

uint64_t fh_obj(struct fake_heap *fh, int type, size_t size)
{
	uint64_t o = fh_alloc(fh, size);
	fh_set(fh, o, 0, fh_map(fh, type));
	return o;
}

static uint64_t str_header(struct fake_heap *fh, int type, size_t size, int len)
{
	uint64_t s = fh_obj(fh, type, size);
	fh_set32(fh, s, 8, 0);   /* raw hash */
	uint32_t n = (uint32_t)len; /* all 32 bits (fh_set32 writes a map's u16 type at 12) */
	memcpy(fh_ptr(fh, s - 1 + 12), &n, 4);
	return s;
}

uint64_t fh_str1(struct fake_heap *fh, const char *latin1)
{
	int len = (int)strlen(latin1);
	uint64_t s = str_header(fh, FT_SEQ_ONE, 16 + (size_t)len, len);
	memcpy(fh_ptr(fh, s - 1 + 16), latin1, (size_t)len);
	return s;
}

uint64_t fh_str2(struct fake_heap *fh, const uint16_t *u, int len)
{
	uint64_t s = str_header(fh, FT_SEQ_TWO, 16 + 2 * (size_t)len, len);
	memcpy(fh_ptr(fh, s - 1 + 16), u, 2 * (size_t)len);
	return s;
}

static int str_len(struct fake_heap *fh, uint64_t s)
{
	int32_t len;
	memcpy(&len, fh_ptr(fh, s - 1 + 12), 4);
	return len;
}

uint64_t fh_cons(struct fake_heap *fh, uint64_t first, uint64_t second)
{
	uint64_t s = str_header(fh, FT_CONS_ONE, 32, str_len(fh, first) + str_len(fh, second));
	fh_set(fh, s, 16, first);
	fh_set(fh, s, 24, second);
	return s;
}

uint64_t fh_thin(struct fake_heap *fh, uint64_t actual)
{
	uint64_t s = str_header(fh, FT_THIN_ONE, 24, str_len(fh, actual));
	fh_set(fh, s, 16, actual);
	return s;
}

uint64_t fh_sliced(struct fake_heap *fh, uint64_t parent, int offset, int len)
{
	uint64_t s = str_header(fh, FT_SLICED_ONE, 32, len);
	fh_set(fh, s, 16, parent);
	fh_set(fh, s, 24, fh_smi(offset));
	return s;
}

uint64_t fh_external(struct fake_heap *fh, const void *data, int len, bool two_byte, bool uncached)
{
	uint64_t bytes = fh_raw(fh, data, (size_t)len * (two_byte ? 2 : 1));
	int type = uncached ? FT_UNCACHED_EXT_ONE : two_byte ? FT_EXT_TWO : FT_EXT_ONE;
	uint64_t s = str_header(fh, type, 32, len);
	fh_set(fh, s, 16, 0xdead0000); /* resource: a C++ object we never call */
	fh_set(fh, s, 24, uncached ? 0 : bytes);
	return s;
}

uint64_t fh_oddball(struct fake_heap *fh, int kind)
{
	uint64_t o = fh_obj(fh, FT_ODDBALL, 48);
	fh_set(fh, o, 40, fh_smi(kind)); /* Oddball.kind holds a Smi */
	return o;
}
